"""Finding a run of lines in a file at decreasing strictness, as ``patch`` looks for a hunk's context.

The levels are those of SPEC 5 for the ``*** Begin Patch`` format (and Codex's ``seek_sequence``), used for unified
diffs too: exactly; ignoring white space at line ends; ignoring white space at both ends; and with Unicode dashes,
quotes and spaces folded to ASCII. The first level that finds the run anywhere decides, so a looser reading never
wins over an exact one elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.record import record
from engine.tools.matching.normalise import fold_punctuation


@record
class SeekLevel:
    name: str
    key: Callable[[str], str]


def _exact(line: str) -> str:
    return line


def _folded(line: str) -> str:
    return fold_punctuation(line).strip()


SEEK_LEVELS: tuple[SeekLevel, ...] = (
    SeekLevel("exact", _exact),
    SeekLevel("ignoring trailing white space", str.rstrip),
    SeekLevel("ignoring surrounding white space", str.strip),
    SeekLevel("with Unicode punctuation folded", _folded),
)
LOOSEST = SEEK_LEVELS[-1]


def seek_all(lines: Sequence[str], pattern: Sequence[str], start: int = 0) -> tuple[list[int], SeekLevel | None]:
    """Every index >= ``start`` where ``pattern`` begins, at the strictest level that finds any; ([], None) if none."""
    for level in SEEK_LEVELS:
        hits = positions(lines, pattern, level, start)
        if hits:
            return hits, level
    return [], None


def seek_at(lines: Sequence[str], pattern: Sequence[str], index: int) -> SeekLevel | None:
    """The strictest level at which ``pattern`` matches exactly at ``index``, if any."""
    for level in SEEK_LEVELS:
        if _matches_at(lines, [level.key(line) for line in pattern], level, index):
            return level
    return None


def positions(lines: Sequence[str], pattern: Sequence[str], level: SeekLevel, start: int = 0) -> list[int]:
    keys = [level.key(line) for line in pattern]
    return [index for index in range(start, len(lines) - len(keys) + 1) if _matches_at(lines, keys, level, index)]


def matching_prefix(lines: Sequence[str], pattern: Sequence[str], index: int) -> int:
    """How many leading lines of ``pattern`` match at ``index`` at the loosest level."""
    count = 0
    while (
        count < len(pattern)
        and index + count < len(lines)
        and LOOSEST.key(lines[index + count]) == LOOSEST.key(pattern[count])
    ):
        count += 1
    return count


def _matches_at(lines: Sequence[str], keys: Sequence[str], level: SeekLevel, index: int) -> bool:
    if index < 0 or index + len(keys) > len(lines):
        return False
    return all(level.key(lines[index + offset]) == key for offset, key in enumerate(keys))
