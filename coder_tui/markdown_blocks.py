"""Where streamed Markdown stops being finished: the start of its last top-level block.

While a model streams, only the last top-level block (a paragraph, list, table or code fence) can still change;
every block before it is final and can be rendered once for good. Blocks are found the way Textual's Markdown widget
finds them, with markdown-it's "gfm-like" parser; parsing only the unfinished end keeps this cheap.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


@cache
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("gfm-like")


def finished_length(markdown: str) -> int:
    """How many leading characters of ``markdown`` are complete blocks: the offset of the line where its last
    top-level block starts (0 when there is one block or none)."""
    last_start = 0
    for token in _parser().parse(markdown):
        if token.level == 0 and token.map is not None:
            last_start = token.map[0]
    offset = 0
    for _ in range(last_start):
        found = markdown.find("\n", offset)
        if found < 0:
            return 0  # lines ended by a lone "\r": markdown-it counts them, we keep the text whole
        offset = found + 1
    return offset
