"""``locate``: the strategies of ``edit`` tried in order, the first that finds anything deciding."""

from __future__ import annotations


from engine.record import record
from engine.tools.matching.anchor_block import anchor_block
from engine.tools.matching.match import Match
from engine.tools.matching.strategies import (
    Strategy,
    escape_normalised,
    exact,
    indentation_flexible,
    line_trimmed,
    whitespace_normalised,
)
from engine.tools.matching.text_lines import TextLines

EXACT = Strategy("exact", "", exact)
STRATEGIES: tuple[Strategy, ...] = (
    EXACT,
    Strategy("line-trimmed", "when white space at line ends is ignored", line_trimmed),
    Strategy("indentation-flexible", "when indentation is ignored", indentation_flexible),
    Strategy("whitespace-normalised", "when runs of white space count as one space", whitespace_normalised),
    Strategy("escape-normalised", "once backslash escapes are undone", escape_normalised),
    Strategy("anchor-block", "by its first and last lines with a similar middle", anchor_block),
)


@record
class Located:
    strategy: Strategy
    matches: list[Match]


def locate(text: str, needle: str) -> Located | None:
    """Where ``needle`` is in ``text`` by the strictest strategy that finds it at all; None when none does."""
    lines = TextLines.of(text)
    for strategy in STRATEGIES:
        matches = strategy.find(lines, needle)
        if matches:
            return Located(strategy, matches)
    return None
