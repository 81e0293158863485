"""The last resort of ``edit``: a block whose first and last lines match ``old_string``'s and whose middle is similar.

Models retype long blocks from memory and get a middle line slightly wrong. When the first and last lines (ignoring
their indentation) frame a block of about the same size whose middle reads almost the same, that is the block
meant. Every framed block at least ``SIMILARITY`` alike counts as a candidate, so two similar blocks are reported
as ambiguous instead of one being picked.
"""

from __future__ import annotations

import difflib

from engine.tools.matching.indentation import Reindenter, indent_mapping
from engine.tools.matching.match import Match, block_match, line_pairs, non_overlapping
from engine.tools.matching.text_lines import TextLines, needle_lines

# How alike the middle lines must be (difflib ratio of their stripped text). Loose enough for a retyped line or two,
# strict enough that two different bodies between the same braces are not taken for one another.
SIMILARITY = 0.75
MIN_LINES = 3


def anchor_block(lines: TextLines, needle: str) -> list[Match]:
    model, ends_with_newline = needle_lines(needle)
    if len(model) < MIN_LINES:
        return []
    first_anchor, last_anchor = model[0].strip(), model[-1].strip()
    if not first_anchor or not last_anchor:
        return []
    middle = "\n".join(line.strip() for line in model[1:-1])
    longest = 2 * len(model)
    candidates: list[Match] = []
    for first, line in enumerate(lines.lines):
        if line.strip() != first_anchor:
            continue
        last = _closing_line(lines, first, last_anchor, longest)
        if last is None:
            continue
        block_middle = "\n".join(text.strip() for text in lines.lines[first + 1 : last])
        if difflib.SequenceMatcher(None, middle, block_middle, autojunk=False).ratio() < SIMILARITY:
            continue
        count = last - first + 1
        candidates.append(block_match(lines, first, count, ends_with_newline, _reindenter(model, lines, first, last)))
    return non_overlapping(candidates)


def _closing_line(lines: TextLines, first: int, last_anchor: str, longest: int) -> int | None:
    """The first line after ``first`` (leaving room for a middle) that matches the last anchor, within reach."""
    for index in range(first + 2, min(len(lines), first + longest)):
        if lines.lines[index].strip() == last_anchor:
            return index
    return None


def _reindenter(model: list[str], lines: TextLines, first: int, last: int) -> Reindenter | None:
    anchors = [(model[0], lines.lines[first]), (model[-1], lines.lines[last])]
    mapping = None
    if last - first + 1 == len(model):
        mapping = indent_mapping(line_pairs(model, lines, first))
    if mapping is None:
        mapping = indent_mapping(anchors)
    return Reindenter.build(mapping, lines.lines) if mapping is not None else None
