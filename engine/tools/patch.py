"""The ``patch`` tool: apply a unified diff or a ``*** Begin Patch`` block to the workspace, all or nothing (SPEC 5).

The patch is parsed (``patch_parse``), played in memory against the files (``patch_plan``, ``patch_apply``) and
only then written (``patch_write``), so any failure, a hunk that does not match as much as a write error, leaves
every file as it was and says which file, hunk and patch line failed. Every path goes through the workspace guard
for writing (nothing outside the workspace, nothing under ``.coder/``), and a file changed on disk since the session
last read it is refused, as ``write`` and ``edit`` do.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from engine.errors import PathOutsideWorkspace, ToolError
from engine.text_diff import HunkChoice
from engine.tools.base import Tool, ToolContext, ToolKind, ToolOutput
from engine.tools.patch_parse import ChangeKind, PatchSyntaxError, parse_patch, touched_paths
from engine.tools.patch_plan import PatchPlan, plan_patch
from engine.tools.patch_write import write_all_or_nothing


class PatchParams(BaseModel):
    patch: str = Field(
        description=(
            "The patch: a unified diff (one or more files; '--- /dev/null' creates a file, '+++ /dev/null' "
            "deletes one) or a '*** Begin Patch' ... '*** End Patch' block."
        )
    )


class PatchTool(Tool[PatchParams]):
    name = "patch"
    description = (
        "Apply a patch to one or more files at once, all or nothing: if any part fails, no file is changed and "
        "the error names the file, the hunk and the patch line that did not match. Two formats are accepted.\n"
        "1. A unified diff as `git diff` writes it: '--- a/path' and '+++ b/path' headers, '@@ -l,n +l,n @@' "
        "hunks of ' ' context, '-' removed and '+' added lines; '/dev/null' for a new or deleted file; git "
        "'rename from'/'rename to'. Line numbers may be approximate.\n"
        "2. The apply_patch format:\n"
        "*** Begin Patch\n"
        "*** Add File: path   (then each line of the new file prefixed with '+')\n"
        "*** Delete File: path\n"
        "*** Update File: path\n"
        "*** Move to: new/path   (optional)\n"
        "@@ def enclosing_function():   (optional line to find first, to say which place is meant)\n"
        " context line\n"
        "-removed line\n"
        "+added line\n"
        "*** End of File   (optional: the change is at the end of the file)\n"
        "*** End Patch\n"
        "Give about 3 lines of context around each change. Context is matched exactly, else ignoring white space "
        "and typographic punctuation; when it fits several places the patch is refused, so add an '@@' line or "
        "more context. Returns the files changed and the diff. Read files before patching them; a file changed "
        "on disk since you read it is refused until you read it again."
    )
    params = PatchParams
    kind = ToolKind.EDIT

    def key_argument(self, params: PatchParams) -> str:
        paths = touched_paths(params.patch)
        return ", ".join(paths) if paths else "(unreadable patch)"

    async def approval_reasons(self, params: PatchParams, ctx: ToolContext) -> list[str]:
        """Deleting or replacing a file the session never read is worth a look, as overwriting one is for
        ``write``: a delete, an add onto an existing file, and a move onto one."""
        try:
            changes = parse_patch(params.patch)
        except PatchSyntaxError:
            return []  # run() reports the syntax error
        reasons = []
        for target in (path for change in changes for path in change.touched_paths()):
            try:
                ctx.workspace.resolve(target, write=True)
            except PathOutsideWorkspace:
                continue  # refused by run() with the guard's own message
            reason = ctx.workspace.write_reason(target)
            if reason is not None and reason not in reasons:
                reasons.append(reason)
        for change in changes:
            if change.kind is ChangeKind.DELETE:
                target, verb = change.path, "deletes"
            elif not change.replaces_existing:
                continue
            elif change.kind is ChangeKind.ADD:
                target, verb = change.path, "overwrites"
            elif change.move_to is not None:
                target, verb = change.move_to, "overwrites"
            else:
                continue
            try:
                path = ctx.workspace.resolve(target, write=True)
            except PathOutsideWorkspace:
                continue  # refused by run() with the guard's own message
            reason = f"{verb} {ctx.workspace.display(path)}, which was not read in this session"
            if path.is_file() and path not in ctx.known_files and reason not in reasons:
                reasons.append(reason)
        return reasons

    async def preview(self, params: PatchParams, ctx: ToolContext) -> str | None:
        plan = await asyncio.to_thread(_plan, params, ctx)
        return plan.diff

    async def paths_to_change(self, params: PatchParams, ctx: ToolContext) -> list[Path]:
        """Every file the patch would write or delete (moves: both ends), for a caller that snapshots them first."""
        plan = await asyncio.to_thread(_plan, params, ctx)
        return [write.path for write in plan.writes]

    async def run(self, params: PatchParams, ctx: ToolContext) -> ToolOutput:
        choice = HunkChoice(ctx.kept_hunks)
        plan = await asyncio.to_thread(_plan, params, ctx, choice)
        ctx.about_to_change(write.path for write in plan.writes)
        await asyncio.to_thread(write_all_or_nothing, plan.writes)
        for write in plan.writes:
            ctx.remember(write.path)
        data: dict[str, Any] = {"files": plan.files}
        if choice.dropped:
            data["dropped_hunks"] = choice.dropped
        return ToolOutput(data=data, diff=plan.diff, changed_paths=tuple(write.display for write in plan.writes))


def _plan(params: PatchParams, ctx: ToolContext, choice: HunkChoice | None = None) -> PatchPlan:
    try:
        plan = plan_patch(parse_patch(params.patch), ctx, choice)
    except PathOutsideWorkspace:
        raise
    except ToolError as exc:
        raise ToolError(f"{exc}; no file was changed") from exc
    if not plan.files:
        raise ToolError("the patch changes nothing: every file already has the content it describes")
    return plan
