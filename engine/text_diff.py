"""Unified diffs of file changes, as git shows them: what write, edit, patch, undo and ``/diff`` report; and whether a
content is text at all (``looks_binary``).

Lines are split on ``\\n`` only (``str.splitlines`` would also split on form feeds and other separators that are
ordinary characters inside a source line), and a last line without a newline gets git's
``\\ No newline at end of file`` marker so the diff stays a valid patch.
"""

from __future__ import annotations

import difflib
import re

NO_NEWLINE_MARKER = "\\ No newline at end of file"
BINARY_SNIFF_BYTES = 8192
_HUNK_HEADER = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


def looks_binary(data: bytes) -> bool:
    """The usual NUL-byte sniff of the first few KiB, as git and grep do it."""
    return b"\0" in data[:BINARY_SNIFF_BYTES]


def unified_diff(old: str | None, new: str | None, display_path: str, *, context: int = 3) -> str:
    """The diff from ``old`` to ``new``; ``None`` means the file does not exist on that side (``/dev/null``).

    Returns "" when nothing changes. Creating or deleting an empty file still gives the two header lines, so the
    change is visible.
    """
    if old == new:
        return ""
    from_name = "/dev/null" if old is None else f"a/{display_path}"
    to_name = "/dev/null" if new is None else f"b/{display_path}"
    lines = difflib.unified_diff(
        split_lines(old or ""), split_lines(new or ""), from_name, to_name, n=context, lineterm="\n"
    )
    out: list[str] = []
    for line in lines:
        out.append(line)
        if not line.endswith("\n"):
            out.append(f"\n{NO_NEWLINE_MARKER}\n")
    if not out:
        out = [f"--- {from_name}\n", f"+++ {to_name}\n"]
    return "".join(out)


def diff_stats(diff: str) -> tuple[int, int]:
    """(added, removed) line counts of a unified diff, one or several files.

    Hunk headers are followed by their line counts, so a content line that happens to start with ``+++`` or
    ``---`` is still counted as content and never mistaken for a file header.
    """
    added = removed = 0
    old_left = new_left = 0
    for line in diff.split("\n"):
        if old_left > 0 or new_left > 0:
            tag = line[:1]
            if tag == "+":
                added += 1
                new_left -= 1
            elif tag == "-":
                removed += 1
                old_left -= 1
            elif tag == " " or line == "":
                old_left -= 1
                new_left -= 1
            continue
        header = _HUNK_HEADER.match(line)
        if header:
            old_left = int(header.group(1)) if header.group(1) is not None else 1
            new_left = int(header.group(2)) if header.group(2) is not None else 1
    return added, removed


def split_lines(text: str) -> list[str]:
    """``text`` as lines that keep their ``\\n``; the last one has none when the text does not end with one."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def diff_parts(diff: str) -> list[tuple[int | None, str]]:
    """A unified diff (one or several files) cut into its parts in order: each hunk (its ``@@`` line and the lines
    under it) with its number, and the lines between hunks (file headers) with None.

    Hunk ``i`` of a write, edit or patch preview is the one the user keeps or drops as number ``i`` (SPEC 5). As in
    ``diff_stats``, a hunk's lines are counted from its header, so a content line starting ``---`` stays in it."""
    parts: list[tuple[int | None, list[str]]] = []
    hunks = 0
    old_left = new_left = 0
    lines = diff.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for line in lines:
        in_hunk = bool(parts) and parts[-1][0] is not None
        if old_left > 0 or new_left > 0:
            tag = line[:1]
            old_left -= tag in ("-", " ", "")
            new_left -= tag in ("+", " ", "")
            parts[-1][1].append(line)
        elif line.startswith(NO_NEWLINE_MARKER) and in_hunk:
            parts[-1][1].append(line)
        elif header := _HUNK_HEADER.match(line):
            old_left = int(header.group(1)) if header.group(1) is not None else 1
            new_left = int(header.group(2)) if header.group(2) is not None else 1
            parts.append((hunks, [line]))
            hunks += 1
        elif parts and not in_hunk:
            parts[-1][1].append(line)
        else:
            parts.append((None, [line]))
    return [(number, "\n".join(part)) for number, part in parts]


def diff_hunks(diff: str) -> list[str]:
    """The hunks of a unified diff in order (see ``diff_parts``)."""
    return [text for number, text in diff_parts(diff) if number is not None]


class HunkChoice:
    """Which hunks of a preview the user kept (SPEC 5: per-hunk approval), consumed file by file in the order the
    preview's diff lists them (``None``: all of them). Each file's change is replayed with only its kept hunks;
    what was dropped is collected, with its text, for the tool's result."""

    def __init__(self, kept: frozenset[int] | None = None) -> None:
        self._kept = kept
        self._next = 0  # the number of this file's first hunk in the whole preview
        self.dropped: list[dict[str, str]] = []

    def apply(self, old: str | None, new: str | None, display: str) -> str | None:
        """``new`` with this file's dropped hunks left as in ``old``; ``old`` itself when every hunk of the file is
        dropped (so a dropped creation creates nothing and a dropped deletion deletes nothing)."""
        if old == new:
            return new
        old_lines, new_lines = split_lines(old or ""), split_lines(new or "")
        # The grouping ``difflib.unified_diff`` makes its hunks from: group i is hunk i of this file's diff.
        groups = list(difflib.SequenceMatcher(None, old_lines, new_lines).get_grouped_opcodes(3))
        first, self._next = self._next, self._next + len(groups)
        if self._kept is None or not groups:  # no hunk to drop (an empty file created or deleted): all of it
            return new
        texts = diff_hunks(unified_diff(old, new, display))
        kept = [first + index in self._kept for index in range(len(groups))]
        self.dropped += [
            {"file": display, "hunk": str(first + index), "text": text}
            for index, text in enumerate(texts) if not kept[index]
        ]
        if not any(kept):
            return old
        if all(kept):
            return new
        out: list[str] = []
        position = 0
        for group in (group for index, group in enumerate(groups) if kept[index]):
            for tag, i1, i2, j1, j2 in group:
                if tag != "equal":
                    out += old_lines[position:i1] + new_lines[j1:j2]
                    position = i2
        return "".join(out + old_lines[position:])
