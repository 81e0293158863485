"""One place where ``old_string`` was found, and how ``new_string`` must be adjusted to fit there."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from engine.record import record
from engine.tools.matching.indentation import Reindenter
from engine.tools.matching.normalise import unescape
from engine.tools.matching.text_lines import TextLines


@record
class Match:
    """``text[start:end]`` is what gets replaced.

    A tolerant match may need the replacement adapted the same way the needle was: re-indented to the file's
    indentation, unescaped like the needle, or without its final newline when the matched block is the last line of
    a file that has none (so editing the last line never adds a trailing newline the file did not have).
    ``inline_first_line``: the match starts after the first line's indentation (the model copied from the first
    non-blank character), so the replacement's first line goes there as written and only the others are re-indented.
    """

    start: int
    end: int
    reindent: Reindenter | None = None
    unescape: bool = False
    drop_final_newline: bool = False
    inline_first_line: bool = False

    @property
    def span(self) -> tuple[int, int]:
        return self.start, self.end

    def replacement(self, new_string: str) -> str:
        text = unescape(new_string) if self.unescape else new_string
        if self.reindent is not None:
            if self.inline_first_line:
                head, newline, tail = text.partition("\n")
                text = head + newline + self.reindent.apply(tail) if newline else head
            else:
                text = self.reindent.apply(text)
        if self.drop_final_newline and text.endswith("\n"):
            text = text[:-1]
        return text


def block_match(
    lines: TextLines,
    first: int,
    count: int,
    needle_ends_with_newline: bool,
    reindent: Reindenter | None = None,
    *,
    skip_indent: int = 0,
) -> Match:
    """The match covering whole lines ``first .. first+count-1`` (its newline too when the needle had one)."""
    start, end = lines.span(first, count, with_newline=needle_ends_with_newline)
    at_end_without_newline = needle_ends_with_newline and not lines.text[start:end].endswith("\n")
    return Match(
        start=start + skip_indent,
        end=end,
        reindent=reindent,
        drop_final_newline=at_end_without_newline,
        inline_first_line=skip_indent > 0,
    )


def scan_windows(
    lines: TextLines, size: int, matcher: Callable[[int], Match | None]
) -> list[Match]:
    """Tries ``matcher`` on every window of ``size`` lines, left to right, skipping past each hit (no overlaps)."""
    found: list[Match] = []
    index = 0
    while index <= len(lines) - size:
        match = matcher(index)
        if match is None:
            index += 1
            continue
        found.append(match)
        index += size
    return found


def non_overlapping(matches: Iterable[Match]) -> list[Match]:
    """Left to right, dropping any match that starts inside the previous one."""
    kept: list[Match] = []
    for match in sorted(matches, key=lambda m: (m.start, m.end)):
        if not kept or match.start >= kept[-1].end:
            kept.append(match)
    return kept


def line_pairs(model_lines: Sequence[str], lines: TextLines, first: int) -> list[tuple[str, str]]:
    return [(model, lines.lines[first + offset]) for offset, model in enumerate(model_lines)]
