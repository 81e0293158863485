"""Running sums of a measure over a conversation that grows at its end. ``TokenCounter`` keeps one for its exact
counts and one for its byte bounds (SPEC 10: a new message is counted once, not the whole history each step).

Each message is measured once while the history only grows, or is read as a prefix of itself (the request before
an answer); a different history (a compaction, a resumed session) starts the sums again from it. Messages are
matched by identity: the session appends new message objects and never edits one in place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.messages import Message


class RunningSums:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.sums: list[int] = []  # ``sums[i]``: the measure of ``messages[0..i]``

    def summed_prefix(self, messages: Sequence[Message]) -> int:
        """How many leading messages of ``messages`` are summed here (0 unless they continue this history)."""
        k = min(len(messages), len(self.messages))
        if k and messages[0] is self.messages[0] and messages[k - 1] is self.messages[k - 1]:
            return k
        return 0

    def total(self, count: int) -> int:
        """The sum over the first ``count`` messages summed here."""
        return self.sums[count - 1] if count else 0

    def update(self, messages: Sequence[Message], measure: Callable[[Message], int]) -> bool:
        """Sums every message of ``messages`` (measuring only those new here); True when it started again from them
        (they did not continue this history)."""
        if not messages:
            return False
        restarted = not self.summed_prefix(messages)
        if restarted:
            self.messages, self.sums = [], []
        running = self.sums[-1] if self.sums else 0
        for message in messages[len(self.messages):]:
            running += measure(message)
            self.messages.append(message)
            self.sums.append(running)
        return restarted
