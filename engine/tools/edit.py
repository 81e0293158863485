"""The ``edit`` tool: replace one exact piece of a file, or every occurrence of it, and report the diff.

Matching is done on the text with ``\\n`` newlines and the result is written back with the file's own line endings,
encoding and BOM, so a CRLF file stays CRLF and the model never has to care. Finding the text is the job of
``find_matches``, which tries its strategies in order; only the exact one exists so far, and tolerant strategies
(SPEC 5: line-trimmed, indentation-flexible, whitespace-normalised) slot in behind it.
"""

from __future__ import annotations

import asyncio
import difflib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from engine.errors import ToolError
from engine.tools.base import Tool, ToolContext, ToolKind, ToolOutput
from engine.tools.diff import unified_diff
from engine.tools.fileio import TextDocument, atomic_write, ensure_unchanged_since_known, read_text_document

Span = tuple[int, int]
Matcher = Callable[[str, str], list[Span]]

_CLOSEST_LINES = 3
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


@dataclass(frozen=True)
class _EditPlan:
    path: Path
    display: str
    payload: bytes
    replacements: int
    created: bool
    diff: str


class EditTool(Tool[EditParams]):
    name = "edit"
    description = (
        "Replace text in a file: `old_string` must appear exactly once (or set `replace_all`), matched "
        "character for character, whitespace included; line endings are handled for you. Returns the path and "
        "the number of replacements. When the text is not found the error shows the closest lines; when it "
        "appears several times the error gives their line numbers, so add context and try again. An empty "
        "`old_string` on a missing file creates it with `new_string`. Read the file first; a file changed on "
        "disk since you read it is refused until you read it again."
    )
    params = EditParams
    kind = ToolKind.EDIT

    def key_argument(self, params: EditParams) -> str:
        return params.path

    async def preview(self, params: EditParams, ctx: ToolContext) -> str | None:
        plan = await asyncio.to_thread(_plan_edit, params, ctx)
        return plan.diff

    async def run(self, params: EditParams, ctx: ToolContext) -> ToolOutput:
        plan = await asyncio.to_thread(_plan_edit, params, ctx)
        await asyncio.to_thread(atomic_write, plan.path, plan.payload, plan.display)
        ctx.remember(plan.path)
        data = {"path": plan.display, "replacements": plan.replacements, "created": plan.created}
        return ToolOutput(data=data, diff=plan.diff)


def exact_matches(content: str, needle: str) -> list[Span]:
    """Every non-overlapping occurrence of ``needle``, left to right."""
    spans: list[Span] = []
    start = content.find(needle)
    while start != -1:
        spans.append((start, start + len(needle)))
        start = content.find(needle, start + len(needle))
    return spans


# Tried in order; the first strategy that finds anything decides, so a looser one never overrides an exact hit.
MATCHERS: tuple[Matcher, ...] = (exact_matches,)


def find_matches(content: str, needle: str) -> list[Span]:
    for matcher in MATCHERS:
        spans = matcher(content, needle)
        if spans:
            return spans
    return []


def _plan_edit(params: EditParams, ctx: ToolContext) -> _EditPlan:
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
        created = TextDocument(text="")
        payload = created.encode(new_string, display)
        return _EditPlan(path, display, payload, 1, True, unified_diff(None, new_string, display))
    ensure_unchanged_since_known(ctx, path, display)
    document = read_text_document(path, display)
    if not old_string:
        if document.text:
            raise ToolError(
                f"old_string is empty but {display} is not: give the exact text to replace, or use write to "
                "replace the whole file"
            )
        new_text, count = new_string, 1
    else:
        spans = find_matches(document.text, old_string)
        _check_match_count(spans, document.text, old_string, params.replace_all, display)
        new_text, count = _replace(document.text, spans, new_string), len(spans)
    payload = document.encode(new_text, display)
    diff = unified_diff(document.text, new_text, display)
    return _EditPlan(path, display, payload, count, False, diff)


def _check_match_count(spans: list[Span], text: str, needle: str, replace_all: bool, display: str) -> None:
    if not spans:
        raise ToolError(_not_found_message(text, needle, display))
    if len(spans) > 1 and not replace_all:
        numbers = [text.count("\n", 0, start) + 1 for start, _ in spans]
        listed = ", ".join(str(n) for n in numbers[:_LISTED_LINE_NUMBERS])
        more = ", ..." if len(numbers) > _LISTED_LINE_NUMBERS else ""
        raise ToolError(
            f"old_string matches {len(spans)} times in {display} (lines {listed}{more}); include more "
            "surrounding lines to make it unique, or set replace_all to true to replace every occurrence"
        )


def _not_found_message(text: str, needle: str, display: str) -> str:
    lines = text.split("\n")
    probe = next((line for line in needle.split("\n") if line.strip()), needle).strip()
    stripped = [line.strip() for line in lines]
    close = difflib.get_close_matches(probe, stripped, n=_CLOSEST_LINES, cutoff=0.6)
    message = f"old_string was not found in {display}"
    if not close:
        return f"{message}, nor anything close to it; read the file again and copy the text exactly"
    shown = "\n".join(f"{stripped.index(line) + 1:>6}\t{lines[stripped.index(line)]}" for line in close)
    return (
        f"{message}. The closest lines are:\n{shown}\nCopy the text exactly as read shows it (without the "
        "line-number prefix), including indentation and white space"
    )


def _replace(text: str, spans: list[Span], replacement: str) -> str:
    pieces: list[str] = []
    position = 0
    for start, end in spans:
        pieces += [text[position:start], replacement]
        position = end
    pieces.append(text[position:])
    return "".join(pieces)
