"""The ``write`` tool: create a file or replace its whole content, atomically, reporting the diff it made.

Two guards protect work the model has not seen: a file changed on disk since the session last read it is refused
(the model would overwrite someone else's edit from a stale picture), and overwriting a file never read in this
session is allowed but asks for approval (``approval_reasons``).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import BaseModel, Field

from engine.errors import ToolError
from engine.record import record
from engine.text_diff import HunkChoice, looks_binary, unified_diff
from engine.tools.base import Tool, ToolContext, ToolKind, ToolOutput
from engine.tools.fileio import (
    atomic_write,
    decode_text,
    ensure_unchanged_since_known,
    read_regular_bytes,
)


class WriteParams(BaseModel):
    path: str = Field(description="The file to write, relative to the workspace root. Missing folders are created.")
    content: str = Field(description="The complete new content of the file, written as UTF-8 exactly as given.")


@record
class _WritePlan:
    path: Path
    display: str
    payload: bytes
    created: bool
    diff: str


class WriteTool(Tool[WriteParams]):
    name = "write"
    description = (
        "Create a file, or replace the whole content of an existing one, with `content` (UTF-8, exactly as "
        "given; missing folders are created). Returns the path, the bytes written and whether the file was "
        "created. Read an existing file before overwriting it; a file that changed on disk since you read it is "
        "refused until you read it again. To change part of a file prefer edit, which sends only the change."
    )
    params = WriteParams
    kind = ToolKind.EDIT

    def key_argument(self, params: WriteParams) -> str:
        return params.path

    async def approval_reasons(self, params: WriteParams, ctx: ToolContext) -> list[str]:
        path = ctx.workspace.resolve(params.path, write=True)
        reasons = [reason] if (reason := ctx.workspace.write_reason(params.path)) else []
        if path.is_file() and path not in ctx.known_files:
            reasons.append(f"overwrites {ctx.workspace.display(path)}, which was not read in this session")
        return reasons

    async def preview(self, params: WriteParams, ctx: ToolContext) -> str | None:
        plan = await asyncio.to_thread(_plan_write, params, ctx)
        return plan.diff

    async def run(self, params: WriteParams, ctx: ToolContext) -> ToolOutput:
        choice = HunkChoice(ctx.kept_hunks)
        plan = await asyncio.to_thread(_plan_write, params, ctx, choice)
        ctx.about_to_change([plan.path])
        await asyncio.to_thread(atomic_write, plan.path, plan.payload, plan.display)
        ctx.remember(plan.path)
        data: dict[str, object] = {"path": plan.display, "bytes": len(plan.payload), "created": plan.created}
        if choice.dropped:
            data["dropped_hunks"] = choice.dropped
        return ToolOutput(
            data=data,
            diff=plan.diff,
            changed_paths=(plan.display,),
        )


def _plan_write(params: WriteParams, ctx: ToolContext, choice: HunkChoice | None = None) -> _WritePlan:
    """The write to make; with ``choice``, only the hunks of it the user kept."""
    choice = choice or HunkChoice()
    path = ctx.workspace.resolve(params.path, write=True)
    display = ctx.workspace.display(path)
    if path.is_dir():
        raise ToolError(f"{display} is a directory; give a file path to write")
    ensure_unchanged_since_known(ctx, path, display)
    try:
        old: bytes | None = read_regular_bytes(path, display)
    except FileNotFoundError:
        old = None
    except OSError as exc:
        raise ToolError(f"cannot read {display} before overwriting it: {exc.strerror or exc}") from exc
    payload = params.content.encode("utf-8")
    if old is not None and looks_binary(old):
        diff = "" if old == payload else f"Binary files a/{display} and b/{display} differ\n"
    else:
        # Both sides with \n newlines: a CRLF file rewritten with CRLF content shows only its real changes.
        new_text = params.content.replace("\r\n", "\n")
        old_text = None if old is None else decode_text(old).text
        kept_text = choice.apply(old_text, new_text, display)
        if kept_text is None:
            raise ToolError(f"every hunk of the write was dropped: {display} was not created")
        if kept_text != new_text:  # some hunks dropped: the content is rebuilt, with the model's line endings
            payload = (kept_text.replace("\n", "\r\n") if "\r\n" in params.content else kept_text).encode("utf-8")
            new_text = kept_text
        diff = unified_diff(old_text, new_text, display)
    return _WritePlan(path=path, display=display, payload=payload, created=old is None, diff=diff)
