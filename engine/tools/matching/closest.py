"""What to show when text was not found: the file's lines closest to what the model expected, with line numbers.

The model then sees at once whether it misremembered a name, the indentation or a whole block, and can retry with
the file's real text instead of reading the file again.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

CUTOFF = 0.6
_SHOWN_CANDIDATES = 3
_SHOWN_BLOCK_LINES = 8


def closest_line_indices(lines: Sequence[str], probe: str, limit: int = _SHOWN_CANDIDATES) -> list[int]:
    """Indices of the lines most like ``probe`` (white space at both ends ignored), best first."""
    stripped = [line.strip() for line in lines]
    first_index: dict[str, int] = {}
    for index, text in enumerate(stripped):
        first_index.setdefault(text, index)
    close = difflib.get_close_matches(probe.strip(), list(first_index), n=limit, cutoff=CUTOFF)
    return [first_index[text] for text in close]


def numbered(lines: Sequence[str], first: int, count: int) -> str:
    """Lines ``first .. first+count-1`` as ``read`` shows them: a right-aligned 1-based number, a tab, the line."""
    return "\n".join(f"{index + 1:>6}\t{lines[index]}" for index in range(first, min(first + count, len(lines))))


def closest_blocks(lines: Sequence[str], wanted: Sequence[str]) -> str | None:
    """The blocks of ``lines`` that look most like ``wanted``, numbered; None when nothing is close.

    Candidates are found by ``wanted``'s first non-blank line; each is shown as a block as tall as ``wanted``
    (capped), aligned so that the candidate line sits where that line sits in ``wanted``.
    """
    probe_index = next((index for index, line in enumerate(wanted) if line.strip()), None)
    if probe_index is None:
        return None
    height = min(len(wanted), _SHOWN_BLOCK_LINES)
    blocks = []
    for index in closest_line_indices(lines, wanted[probe_index]):
        first = max(0, index - probe_index) if height > 1 else index
        blocks.append(numbered(lines, first, height))
    return "\n   ...\n".join(blocks) if blocks else None
