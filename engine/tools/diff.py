"""Unified diffs of file changes, as git shows them: what write, edit, patch, undo and ``/diff`` report.

Lines are split on ``\\n`` only (``str.splitlines`` would also split on form feeds and other separators that are
ordinary characters inside a source line), and a last line without a newline gets git's
``\\ No newline at end of file`` marker so the diff stays a valid patch.
"""

from __future__ import annotations

import difflib
import re

NO_NEWLINE_MARKER = "\\ No newline at end of file"
_HUNK_HEADER = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


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
