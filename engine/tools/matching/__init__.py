"""Finding the text a model meant to change, tolerating the ways models misquote it (SPEC 5, issue 7)."""

from engine.tools.matching.closest import closest_blocks, closest_line_indices, numbered
from engine.tools.matching.locate import EXACT, STRATEGIES, Located, locate
from engine.tools.matching.match import Match
from engine.tools.matching.strategies import Strategy

__all__ = [
    "EXACT",
    "STRATEGIES",
    "Located",
    "Match",
    "Strategy",
    "closest_blocks",
    "closest_line_indices",
    "locate",
    "numbered",
]
