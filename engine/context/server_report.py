"""What the server said the last request held, as the start of a bound on the next one (issue 32).

Before each model call ``maybe_compact`` asks whether the request could reach the compaction threshold, and only
then loads the token encoding (tens of megabytes) to count it exactly. Without counts, the bound was the request's
UTF-8 bytes: about four times its tokens, so a long session loaded the encoding at a quarter of the threshold (the
engine's memory rose 30 MB near exchange 500 of ``benchmarks/long_session.py``) without any need to compact.

A server that reports usage has counted the request already: its ``prompt_tokens`` is the context the model holds
(the correction ``TokenCounter.correct`` applies makes exact totals agree with it). So the next request, which is
that one with the answer and the next messages after it, costs at most those tokens plus the bytes of what is new,
plus the bytes of the system prompt or the tools if they changed (counted once more, never less: a bound).
A request the server cut (``prompt_cut``) is not taken as a report: its count is of what the server kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.record import record

if TYPE_CHECKING:
    from engine.messages import Message


@record
class ServerReport:
    """``prompt_tokens`` the server reported for a request of ``system``, ``tools`` and ``count`` messages, the
    first and the last of them ``first`` and ``last`` (matched by identity: session messages never change)."""

    prompt_tokens: int
    count: int
    first: Message | None
    last: Message | None
    system: str
    tools: object

    @classmethod
    def of(
        cls, prompt_tokens: int, sent: Sequence[Message], system: str, tools: Sequence[dict[str, Any]]
    ) -> ServerReport:
        return cls(prompt_tokens, len(sent), sent[0] if sent else None, sent[-1] if sent else None, system, tools)

    def continued_by(self, messages: Sequence[Message]) -> bool:
        """Whether ``messages`` starts with the messages the report was for (not after a compaction, say)."""
        if len(messages) < self.count:
            return False
        return not self.count or (messages[0] is self.first and messages[self.count - 1] is self.last)
