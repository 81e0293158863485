"""The ways ``edit`` looks for ``old_string``, strictest first (SPEC 5, issue 7).

Each strategy returns every non-overlapping place it finds, left to right. ``locate`` tries them in order and the
first one that finds anything decides: a looser reading never overrides a stricter hit, and several hits at the
deciding level are an ambiguity the caller reports rather than a choice it makes.

- exact: character for character.
- line-trimmed: whole lines, white space at line ends ignored.
- indentation-flexible: whole lines with the same text after their indentation and the same shape of indentation
  (shifted, two spaces for four, spaces for tabs); the replacement is re-indented to the file's indentation.
- whitespace-normalised: every run of white space counts as one space (within one line, or over whole lines).
- escape-normalised: the model escaped the text once too often (``\\\\n`` for a newline, ``\\\\"`` for a quote);
  both strings are unescaped.
- anchor block (``anchor_block``): first and last lines equal, the lines between them similar.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from engine.record import record
from engine.tools.matching.indentation import Reindenter, indent_mapping, leading_whitespace
from engine.tools.matching.match import Match, block_match, line_pairs, scan_windows
from engine.tools.matching.normalise import collapse_whitespace, unescape
from engine.tools.matching.text_lines import TextLines, needle_lines


@record
class Strategy:
    name: str
    # How the matches were found, as the end of a sentence: "old_string matches 2 times in a.py <qualifier>".
    qualifier: str
    find: Callable[[TextLines, str], list[Match]]


def exact(lines: TextLines, needle: str) -> list[Match]:
    return [Match(start, end) for start, end in _occurrences(lines.text, needle)]


def line_trimmed(lines: TextLines, needle: str) -> list[Match]:
    model, ends_with_newline = needle_lines(needle)
    if not any(line.strip() for line in model):
        return []
    keys = [line.rstrip() for line in model]
    file_keys = [line.rstrip() for line in lines.lines]

    def at(first: int) -> Match | None:
        if file_keys[first] != keys[0] or file_keys[first : first + len(keys)] != keys:
            return None
        return block_match(lines, first, len(keys), ends_with_newline)

    return scan_windows(lines, len(keys), at)


def indentation_flexible(lines: TextLines, needle: str) -> list[Match]:
    model, ends_with_newline = needle_lines(needle)
    if not any(line.strip() for line in model):
        return []
    contents = [line.strip() for line in model]
    stripped = [line.strip() for line in lines.lines]
    # A snippet copied from the first non-blank character of its first line: that line carries no indentation.
    partial_first = len(model) > 1 and not leading_whitespace(model[0])

    def at(first: int) -> Match | None:
        if stripped[first] != contents[0] or stripped[first : first + len(model)] != contents:
            return None
        pairs = line_pairs(model, lines, first)
        mapping = indent_mapping(pairs)
        if mapping is not None:
            reindent = Reindenter.build(mapping, lines.lines)
            return block_match(lines, first, len(model), ends_with_newline, reindent)
        skip = len(leading_whitespace(lines.lines[first]))
        if partial_first and skip:
            mapping = indent_mapping(pairs[1:])
            if mapping is not None:
                reindent = Reindenter.build(mapping, lines.lines)
                return block_match(lines, first, len(model), ends_with_newline, reindent, skip_indent=skip)
        return None

    return scan_windows(lines, len(model), at)


def whitespace_normalised(lines: TextLines, needle: str) -> list[Match]:
    key = collapse_whitespace(needle)
    if not key:
        return []
    model, ends_with_newline = needle_lines(needle)
    if len(model) == 1 and not ends_with_newline:
        return _within_lines(lines, key, needle)
    # Collapsing a block is joining its lines' collapsed forms with one space, blank lines dropping out.
    collapsed = [collapse_whitespace(line) for line in lines.lines]

    def at(first: int) -> Match | None:
        head = collapsed[first]
        if head and not key.startswith(head):
            return None
        if " ".join(text for text in collapsed[first : first + len(model)] if text) != key:
            return None
        mapping = indent_mapping(line_pairs(model, lines, first))
        reindent = Reindenter.build(mapping, lines.lines) if mapping is not None else None
        return block_match(lines, first, len(model), ends_with_newline, reindent)

    return scan_windows(lines, len(model), at)


def escape_normalised(lines: TextLines, needle: str) -> list[Match]:
    unescaped = unescape(needle)
    if unescaped == needle:
        return []
    return [Match(start, end, unescape=True) for start, end in _occurrences(lines.text, unescaped)]


def _within_lines(lines: TextLines, key: str, needle: str) -> list[Match]:
    """A one-line needle found inside lines, any run of white space standing for the needle's single spaces.

    White space the needle starts or ends with must be there too (or the line's start or end), and is part of the
    match as it is part of the needle, so that ``" id "`` neither matches inside ``width`` nor leaves its spaces
    doubled by a replacement that has them too.
    """
    body = r"\s+".join(re.escape(word) for word in key.split(" "))
    before = r"(?:^|\s+)" if needle[:1].isspace() else ""
    after = r"(?:\s+|$)" if needle[-1:].isspace() else ""
    pattern = re.compile(before + body + after)
    found: list[Match] = []
    for start, line in zip(lines.starts, lines.lines):
        found += [Match(start + hit.start(), start + hit.end()) for hit in pattern.finditer(line)]
    return found


def _occurrences(text: str, needle: str) -> list[tuple[int, int]]:
    if not needle:
        return []
    spans: list[tuple[int, int]] = []
    start = text.find(needle)
    while start != -1:
        spans.append((start, start + len(needle)))
        start = text.find(needle, start + len(needle))
    return spans
