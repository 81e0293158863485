"""A count with its noun in the right number, for every line a user reads: "1 line", "2 lines", "1 entry"."""

from __future__ import annotations


def counted(count: int, noun: str) -> str:
    """``count`` and ``noun``, made plural unless the count is one (``entry`` -> ``entries``)."""
    if count == 1:
        return f"{count} {noun}"
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "o", "u"):
        return f"{count} {noun[:-1]}ies"
    return f"{count} {noun}s"
