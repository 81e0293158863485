"""Where a long streamed answer is cut into consecutive Markdown widgets.

Textual re-lays out and restyles a Markdown widget's blocks as it grows, so one 20k-token answer in one widget gets
slower with every block. Cutting it at a paragraph break (never inside a code fence) once a segment is long keeps
each widget small; consecutive segments read as one answer.
"""

from __future__ import annotations

import re

SEGMENT_CHARS = 1000

_FENCE = re.compile(r"^ {0,3}(```|~~~)", re.MULTILINE)


def split_point(text: str, fragment: str, limit: int = SEGMENT_CHARS) -> int | None:
    """The index in ``fragment`` after which a new segment should start, or None to keep appending.

    ``text`` is what the current segment holds. A cut is made once the segment has reached ``limit`` characters,
    right after a blank line (``\\n\\n``) that is outside any code fence.
    """
    if len(text) + len(fragment) < limit:
        return None
    joined = text[-1:] + fragment
    offset = len(text[-1:])
    start = 0
    while (found := joined.find("\n\n", start)) >= 0:
        cut = found + 2 - offset
        if cut > 0 and len(text) + cut >= limit and _outside_fence(text + fragment[:cut]):
            return cut
        start = found + 1
    return None


def _outside_fence(markdown: str) -> bool:
    return len(_FENCE.findall(markdown)) % 2 == 0
