"""A long stored answer cut into pieces, so a restored view (a resumed session, an agent's view) builds and renders
only the pieces on screen and the rest as the user scrolls up to them: rendering a 5k-token answer whole, to show
its last screen, was most of the time an agent's view took to appear.

A piece ends on a blank line outside a code fence, before a line that starts a new top-level block at the margin
(not an indented continuation, not the next item of a list), so each piece renders as it does inside the whole. The
cut is found by a scan of the lines, no Markdown parse: a resumed history counts the pieces of each long answer
before it builds any of them.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Pieces are cut once they hold this many characters (the last one may be shorter): about a screen of text.
PIECE_CHARS = 3000
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"^([-*+]|\d{1,9}[.)])(\s|$)")


@lru_cache(maxsize=32)  # a history counts an answer's pieces, then builds them
def answer_pieces(answer: str, at_most: int = PIECE_CHARS) -> tuple[str, ...]:
    """``answer`` cut at block starts into pieces of about ``at_most`` characters, in order; one piece when it is
    not longer than that."""
    if len(answer) <= at_most:
        return (answer,)
    lines = answer.splitlines(keepends=True)
    pieces: list[str] = []
    start = offset = 0
    fence = ""
    for index, line in enumerate(lines):
        if line.lstrip(" ")[:3] in ("```", "~~~") and (found := _FENCE.match(line)):
            marker = found.group(1)
            if not fence:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence) and not line.strip(" \n`~"):
                fence = ""
        offset += len(line)
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if (offset - start >= at_most and not fence and not line.strip() and following[:1].strip()
                and not _LIST_ITEM.match(following)):
            pieces.append(answer[start:offset])
            start = offset
    if start < len(answer):
        pieces.append(answer[start:])
    return tuple(pieces)
