"""A tool's unified diff as ACP wants it: per file, the path with the whole old and new text.

The engine's events carry the unified diff a write, edit or patch made (hunks only). Right after the call the file
on disk holds the new text, and applying the hunks backwards to it gives the old text: the engine's own patch
parser and hunk matcher do both, so nothing here re-implements diff logic.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from engine.errors import ToolError
from engine.record import record
from engine.tools.patch_apply import apply_hunks
from engine.tools.patch_parse import ChangeKind, parse_patch
from engine.tools.patch_parse.model import Hunk, HunkLine

_FLIPPED = {"+": "-", "-": "+", " ": " "}


@record
class FileDiff:
    path: Path
    old_text: str | None  # None: the file was created
    new_text: str  # "" for a deleted file


def file_diffs(diff: str, workspace: Path) -> list[FileDiff]:
    """The files a unified diff changed, read from ``workspace`` as they are now. A file that cannot be read or a
    diff that does not apply backwards is left out (the client still gets the diff as text elsewhere)."""
    try:
        changes = parse_patch(diff)
    except ToolError:
        return []
    result: list[FileDiff] = []
    for change in changes:
        name = change.move_to or change.path
        path = (workspace / name).resolve()
        try:
            new_text = "" if change.kind is ChangeKind.DELETE else path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if change.kind is ChangeKind.ADD:
            result.append(FileDiff(path, None, new_text))
            continue
        try:
            old_text = apply_hunks(new_text, tuple(_reversed(hunk) for hunk in change.hunks), name)
        except ToolError:
            continue
        result.append(FileDiff(path, old_text, new_text))
    return result


def _reversed(hunk: Hunk) -> Hunk:
    lines = tuple(HunkLine(_FLIPPED[line.tag], line.text, line.patch_line) for line in hunk.lines)  # type: ignore[arg-type]
    return replace(
        hunk,
        lines=lines,
        old_start=None,
        old_missing_newline=hunk.new_missing_newline,
        new_missing_newline=hunk.old_missing_newline,
    )
