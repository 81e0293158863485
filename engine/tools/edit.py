"""The ``edit`` tool: replace one piece of a file, or every occurrence of it, and report the diff.

Matching is done on the text with ``\\n`` newlines and the result is written back with the file's own line endings,
encoding and BOM, so a CRLF file stays CRLF and the model never has to care. Finding the text is the job of
``engine.tools.matching.locate``: exact first, then the tolerant strategies of SPEC 5 in order, the first that
finds anything deciding. A tolerant match may adapt ``new_string`` the way ``old_string`` had to be adapted
(re-indented to the file, unescaped), and the result says which strategy matched so the model can learn from it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from engine.errors import PathOutsideWorkspace, ToolError
from engine.record import record
from engine.text_diff import HunkChoice, unified_diff
from engine.tools.base import Tool, ToolContext, ToolKind, ToolOutput
from engine.tools.fileio import TextDocument, atomic_write, ensure_unchanged_since_known, read_text_document
from engine.tools.matching import EXACT, Located, Match, closest_blocks, locate
from engine.tools.matching.text_lines import TextLines, needle_lines

Span = tuple[int, int]

_LISTED_LINE_NUMBERS = 20


class EditParams(BaseModel):
    path: str = Field(description="The file to edit, relative to the workspace root.")
    old_string: str = Field(
        description=(
            "The exact text to replace, including indentation and surrounding lines enough to make it unique. "
            "Copy it from the read output without the line-number prefix. Empty only to create a new file."
        )
    )
    new_string: str = Field(description="The text to put in its place; must differ from old_string.")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence of old_string instead of requiring exactly one."
    )


@record
class _EditPlan:
    path: Path
    display: str
    payload: bytes
    replacements: int
    created: bool
    diff: str
    # The tolerant strategy that found old_string; None for an exact match or a created file.
    matching: str | None = None


class EditTool(Tool[EditParams]):
    name = "edit"
    description = (
        "Replace text in a file: `old_string` must appear exactly once (or set `replace_all`). Copy it exactly, "
        "white space included; line endings are handled for you. When it is not found exactly, small slips are "
        "tolerated if they still point at exactly one place (white space at line ends, a different indentation, "
        "which then also applies to `new_string`, runs of spaces, doubled backslash escapes, a mistyped middle "
        "line of a block). Returns the path and the number of replacements. When nothing matches the error shows "
        "the closest lines; when several places match it gives their line numbers, so add context and try again. "
        "An empty `old_string` on a missing file creates it with `new_string`. Read the file first; a file "
        "changed on disk since you read it is refused until you read it again."
    )
    params = EditParams
    kind = ToolKind.EDIT

    def key_argument(self, params: EditParams) -> str:
        return params.path

    async def approval_reasons(self, params: EditParams, ctx: ToolContext) -> list[str]:
        try:
            ctx.workspace.resolve(params.path, write=True)
        except PathOutsideWorkspace:
            return []  # run() refuses it with the guard's own message
        reason = ctx.workspace.write_reason(params.path)
        return [reason] if reason else []

    async def preview(self, params: EditParams, ctx: ToolContext) -> str | None:
        plan = await asyncio.to_thread(_plan_edit, params, ctx)
        return plan.diff

    async def run(self, params: EditParams, ctx: ToolContext) -> ToolOutput:
        choice = HunkChoice(ctx.kept_hunks)
        plan = await asyncio.to_thread(_plan_edit, params, ctx, choice)
        ctx.about_to_change([plan.path])
        await asyncio.to_thread(atomic_write, plan.path, plan.payload, plan.display)
        ctx.remember(plan.path)
        data: dict[str, Any] = {"path": plan.display, "replacements": plan.replacements, "created": plan.created}
        if plan.matching is not None:
            data["matching"] = plan.matching
        if choice.dropped:
            data["dropped_hunks"] = choice.dropped
        return ToolOutput(data=data, diff=plan.diff, changed_paths=(plan.display,))


def find_matches(content: str, needle: str) -> list[Span]:
    """Where ``needle`` would be replaced in ``content``, by the strictest strategy that finds it."""
    located = locate(content, needle)
    return [match.span for match in located.matches] if located else []


def _plan_edit(params: EditParams, ctx: ToolContext, choice: HunkChoice | None = None) -> _EditPlan:
    """The edit to make; with ``choice``, only the hunks of it the user kept."""
    choice = choice or HunkChoice()
    old_string = params.old_string.replace("\r\n", "\n")
    new_string = params.new_string.replace("\r\n", "\n")
    if old_string == new_string:
        raise ToolError("old_string and new_string are identical: the edit would change nothing")
    path = ctx.workspace.resolve(params.path, write=True)
    display = ctx.workspace.display(path)
    if not path.exists():
        if old_string:
            raise ToolError(
                f"file not found: {display}; to create it use write, or edit with an empty old_string"
            )
        if (new_string := choice.apply(None, new_string, display)) is None:
            raise ToolError(f"every hunk of the edit was dropped: {display} was not created")
        created = TextDocument(text="")
        payload = created.encode(new_string, display)
        return _EditPlan(path, display, payload, 1, True, unified_diff(None, new_string, display))
    ensure_unchanged_since_known(ctx, path, display)
    document = read_text_document(path, display)
    matching = None
    if not old_string:
        if document.text:
            raise ToolError(
                f"old_string is empty but {display} is not: give the exact text to replace, or use write to "
                "replace the whole file"
            )
        new_text, count = new_string, 1
    else:
        located = _usable_matches(locate(document.text, old_string), document.text, old_string, params, display)
        new_text, count = _replace(document.text, located.matches, new_string), len(located.matches)
        matching = None if located.strategy is EXACT else located.strategy.name
    new_text = choice.apply(document.text, new_text, display) or ""
    payload = document.encode(new_text, display)
    diff = unified_diff(document.text, new_text, display)
    return _EditPlan(path, display, payload, count, False, diff, matching)


def _usable_matches(located: Located | None, text: str, needle: str, params: EditParams, display: str) -> Located:
    """The matches to replace, or the error that says why there are none or too many."""
    if located is None:
        raise ToolError(_not_found_message(text, needle, display))
    if len(located.matches) > 1 and not params.replace_all:
        lines = TextLines.of(text)
        numbers = [lines.line_number(match.start) for match in located.matches]
        listed = ", ".join(str(n) for n in numbers[:_LISTED_LINE_NUMBERS])
        more = ", ..." if len(numbers) > _LISTED_LINE_NUMBERS else ""
        how = f" {located.strategy.qualifier}" if located.strategy.qualifier else ""
        raise ToolError(
            f"old_string matches {len(numbers)} times in {display} (lines {listed}{more}){how}; include more "
            "surrounding lines to make it unique, or set replace_all to true to replace every occurrence"
        )
    return located


def _not_found_message(text: str, needle: str, display: str) -> str:
    message = f"old_string was not found in {display}"
    shown = closest_blocks(TextLines.of(text).lines, needle_lines(needle)[0])
    if shown is None:
        return f"{message}, nor anything close to it; read the file again and copy the text exactly"
    return (
        f"{message}. The closest lines are:\n{shown}\nCopy the text exactly as read shows it (without the "
        "line-number prefix), including indentation and white space"
    )


def _replace(text: str, matches: list[Match], new_string: str) -> str:
    pieces: list[str] = []
    position = 0
    for match in matches:
        pieces += [text[position : match.start], match.replacement(new_string)]
        position = match.end
    pieces.append(text[position:])
    return "".join(pieces)
