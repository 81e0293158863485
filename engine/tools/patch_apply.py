"""Applying the hunks of one file's update to its text, in memory (SPEC 5, ``patch``).

Each hunk is found by its lines, not by its line numbers: after the previous hunk, after its ``@@`` context lines
(``*** Begin Patch``), at the end for ``*** End of File``, and at the strictest level of ``matching.seek`` that finds
it. Where several places fit, a unified diff's line number picks the nearest (offsets are normal: the file moved
on since the diff was made); with neither a number nor a context line to go by, the hunk is ambiguous and refused.

Context lines keep the file's own text (a context line matched without its trailing spaces does not lose them),
and added lines follow the file's indentation when the hunk was found only by ignoring indentation. The file's final
newline is kept unless a ``\\ No newline at end of file`` marker says otherwise.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from engine.errors import ToolError
from engine.record import record
from engine.tools.matching import closest_line_indices
from engine.tools.matching.indentation import Reindenter, indent_mapping
from engine.tools.matching.seek import matching_prefix, seek_all, seek_at
from engine.tools.patch_parse import Hunk

_LISTED_POSITIONS = 10


class HunkMismatch(ToolError):
    """A hunk could not be placed; the message names the file, the hunk and the patch line that did not match."""


@record
class _Edit:
    start: int
    old_count: int
    new_lines: list[str]


def apply_hunks(text: str, hunks: Sequence[Hunk], display: str) -> str:
    """``text`` (``\\n`` newlines) with every hunk applied, or ``HunkMismatch``."""
    lines = _split(text)
    ends_with_newline = text.endswith("\n") or not text
    position = 0
    offset = 0  # how far the file has moved from the line numbers of a unified diff
    edits: list[_Edit] = []
    for number, hunk in enumerate(hunks, start=1):
        where = _describe(hunk, number, display)
        position = _after_anchors(lines, hunk, position, where, display)
        edit = _place(lines, hunk, position, offset, where, display)
        edits.append(edit)
        if hunk.old_start is not None:
            offset = edit.start - (hunk.old_start - 1)
        position = edit.start + edit.old_count
    result: list[str] = []
    cursor = 0
    for edit in edits:
        result += lines[cursor : edit.start] + edit.new_lines
        cursor = edit.start + edit.old_count
    result += lines[cursor:]
    if any(hunk.new_missing_newline for hunk in hunks):
        ends_with_newline = False
    elif any(hunk.old_missing_newline for hunk in hunks):
        ends_with_newline = True
    return "\n".join(result) + ("\n" if ends_with_newline and result else "")


def _split(text: str) -> list[str]:
    lines = text.split("\n")
    if text.endswith("\n") or not text:
        lines.pop()
    return lines


def _describe(hunk: Hunk, number: int, display: str) -> str:
    header = f" ({hunk.header})" if hunk.header else ""
    return f"{display}, hunk {number}{header} at patch line {hunk.patch_line}"


def _after_anchors(lines: list[str], hunk: Hunk, position: int, where: str, display: str) -> int:
    for anchor in hunk.anchors:
        hits, _ = seek_all(lines, [anchor.text], position)
        if not hits:
            after = f" after line {position}" if position else ""
            raise HunkMismatch(
                f"patch failed in {where}: the context line {anchor.text!r} (patch line {anchor.patch_line}) was "
                f"not found in {display}{after}{_closest_hint(lines, anchor.text)}"
            )
        position = hits[0] + 1
    return position


def _place(lines: list[str], hunk: Hunk, position: int, offset: int, where: str, display: str) -> _Edit:
    old = hunk.old_lines
    if not old:
        return _Edit(_insertion_point(lines, hunk, position, offset), 0, hunk.new_lines)
    start = _find(lines, hunk, position, offset, where)
    if start is None:
        trimmed = _without_blank_edges(hunk)
        if trimmed is not None:
            start = _find(lines, trimmed, position, offset, where)
            hunk = trimmed if start is not None else hunk
    if start is None:
        raise HunkMismatch(f"patch failed in {where}: {_explain_mismatch(lines, hunk, position, display)}")
    return _Edit(start, len(hunk.old_lines), _merge(hunk, lines, start))


def _insertion_point(lines: list[str], hunk: Hunk, position: int, offset: int) -> int:
    """Where a hunk that removes nothing and has no context goes: EOF, after its anchor, or at its line number."""
    if hunk.at_end:
        return len(lines)
    if hunk.anchors:
        return position
    if hunk.old_start is not None:
        return min(max(hunk.old_start - 1 + offset, position), len(lines))
    return len(lines)


def _find(lines: list[str], hunk: Hunk, position: int, offset: int, where: str) -> int | None:
    old = hunk.old_lines
    if hunk.at_end and len(lines) - len(old) >= position and seek_at(lines, old, len(lines) - len(old)):
        return len(lines) - len(old)
    hits, _ = seek_all(lines, old, position)
    if len(hits) <= 1:
        return hits[0] if hits else None
    if hunk.old_start is not None:
        expected = hunk.old_start - 1 + offset
        return min(hits, key=lambda hit: (abs(hit - expected), hit))
    if hunk.anchors:
        return hits[0]
    listed = ", ".join(str(hit + 1) for hit in hits[:_LISTED_POSITIONS])
    more = ", ..." if len(hits) > _LISTED_POSITIONS else ""
    raise HunkMismatch(
        f"patch failed in {where}: its lines match {len(hits)} places (lines {listed}{more}); add an '@@' line "
        "naming the enclosing function or class, or more context lines, to say which"
    )


def _without_blank_edges(hunk: Hunk) -> Hunk | None:
    """The hunk without blank context lines at its edges (often a separator, not part of the file); None if none."""
    lines = list(hunk.lines)
    while lines and lines[0].tag == " " and not lines[0].text.strip():
        lines.pop(0)
    while lines and lines[-1].tag == " " and not lines[-1].text.strip():
        lines.pop()
    if len(lines) == len(hunk.lines) or not any(line.tag != "+" for line in lines):
        return None
    return dataclasses.replace(hunk, lines=tuple(lines))


def _merge(hunk: Hunk, lines: list[str], start: int) -> list[str]:
    """The hunk's new side, with the file's own text for context lines and its indentation for added lines."""
    matched = lines[start : start + len(hunk.old_lines)]
    mapping = indent_mapping(zip(hunk.old_lines, matched))
    reindent = Reindenter.build(mapping, lines) if mapping is not None else None
    added = [line.text for line in hunk.lines if line.tag == "+"]
    if reindent is not None and added:
        added = reindent.apply("\n".join(added)).split("\n")
    added_iter = iter(added)
    merged: list[str] = []
    cursor = 0
    for line in hunk.lines:
        if line.tag == "+":
            merged.append(next(added_iter))
        elif line.tag == " ":
            merged.append(matched[cursor])
            cursor += 1
        else:
            cursor += 1
    return merged


def _explain_mismatch(lines: list[str], hunk: Hunk, position: int, display: str) -> str:
    old = [line for line in hunk.lines if line.tag != "+"]
    texts = [line.text for line in old]
    earlier, _ = seek_all(lines, texts, 0)
    if earlier:
        return (
            f"its lines are at line {earlier[0] + 1} of {display}, before the end of the previous hunk (line "
            f"{position}); hunks must be in file order and must not overlap"
        )
    best_start, best_count = position, 0
    for index in range(position, len(lines)):
        count = matching_prefix(lines, texts, index)
        if count > best_count:
            best_start, best_count = index, count
    if best_count == 0:
        first = old[0]
        return f"patch line {first.patch_line}, {first.text!r}, was not found in {display}" + _closest_hint(
            lines, first.text
        )
    bad = old[best_count]
    file_index = best_start + best_count
    found = f"line {file_index + 1} is {lines[file_index]!r}" if file_index < len(lines) else "the file ends there"
    return (
        f"its first {best_count} line(s) match {display} at line {best_start + 1}, but patch line "
        f"{bad.patch_line}, {bad.text!r}, does not match: {found}"
    )


def _closest_hint(lines: list[str], text: str) -> str:
    close = closest_line_indices(lines, text, limit=1)
    if not close:
        return "; nothing in the file is close to it"
    return f"; the closest line is {close[0] + 1}: {lines[close[0]]!r}"
