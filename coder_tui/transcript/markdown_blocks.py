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


def finished_length(markdown: str, at_most: int | None = None) -> int:
    """How many leading characters of ``markdown`` are complete blocks: the offset of the line where its last
    top-level block starts (0 when there is one block or none). With ``at_most``: the longest such prefix of at most
    that many characters, but at least one whole block (so a caller taking it bit by bit always makes progress)."""
    offsets = _block_offsets(markdown)
    if not offsets:
        return 0
    if at_most is None:
        return offsets[-1]
    fitting = [offset for offset in offsets if offset <= at_most]
    return fitting[-1] if fitting else offsets[0]


def finished_chunks(markdown: str, at_most: int, *, whole: bool = False) -> tuple[list[str], str]:
    """The complete blocks of ``markdown`` cut at block starts into chunks of at most ``at_most`` characters (at
    least one block each), and what follows them (the last block, still growing). ``whole``: the text is complete
    (the stream ended), so its last block is the last chunk. One parse, however many chunks."""
    offsets = _block_offsets(markdown)
    if whole and markdown:
        offsets.append(len(markdown))
    chunks: list[str] = []
    start = 0
    while offsets:
        fitting = [offset for offset in offsets if offset - start <= at_most]
        end = fitting[-1] if fitting else offsets[0]
        chunks.append(markdown[start:end])
        offsets = [offset for offset in offsets if offset > end]
        start = end
    return chunks, markdown[start:]


def _block_offsets(markdown: str) -> list[int]:
    """Where each top-level block but the first starts (offsets of line starts); [] for text whose lines end in a
    lone "\r" (markdown-it counts them as lines, so the text is kept whole)."""
    starts = sorted({token.map[0] for token in _parser().parse(markdown) if token.level == 0 and token.map})
    offsets = []
    offset, line = 0, 0
    for start in starts[1:]:
        while line < start:
            found = markdown.find("\n", offset)
            if found < 0:
                return []
            offset, line = found + 1, line + 1
        offsets.append(offset)
    return offsets
