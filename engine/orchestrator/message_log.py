"""Where a live conversation's messages are persisted: the session's own history, or the conversation of a
sub-agent linked to the ``task`` call that started it. Both keep every message; a compaction is recorded, not
applied by deleting (see ``engine.storage.sessions.conversation_log``)."""

from __future__ import annotations

from typing import Any, Protocol

from engine.messages import Message
from engine.record import record
from engine.storage.store import Store


class MessageLog(Protocol):
    def append(self, message: Message, record: dict[str, Any], encoded: str, diff: str | None) -> int:
        """Persists one message (``record``: its redacted record, ``encoded``: that record's JSON text) and returns
        its position in the history."""
        ...

    def start_epoch(
        self, summary: Message, *, kept_from_seq: int | None, tokens_before: int, tokens_after: int
    ) -> int:
        """Records a compaction whose view is ``summary`` then the messages from ``kept_from_seq`` on; returns the
        summary's position."""
        ...


@record
class SessionLog:
    """The session's conversation in the store: the one a resume continues."""

    store: Store
    session_id: str

    def append(self, message: Message, record: dict[str, Any], encoded: str, diff: str | None) -> int:
        return self.store.conversation.append(self.session_id, message, redacted=record, encoded=encoded, diff=diff)

    def start_epoch(
        self, summary: Message, *, kept_from_seq: int | None, tokens_before: int, tokens_after: int
    ) -> int:
        _, seq = self.store.conversation.start_epoch(
            self.session_id,
            summary,
            kept_from_seq=kept_from_seq,
            tokens_before=tokens_before,
            tokens_after=tokens_after,
        )
        return seq


@record
class SubagentLog:
    """A sub-agent's conversation, stored under its parent session and the ``task`` call that started it (of the
    parent's task ``task_id``), so it can be shown and survives a restart; it is never resumed."""

    store: Store
    session_id: str
    parent_call_id: str
    task_id: str | None

    def append(self, message: Message, record: dict[str, Any], encoded: str, diff: str | None) -> int:
        return self.store.conversation.append_subagent(
            self.session_id, self.parent_call_id, message, task_id=self.task_id, redacted=record, encoded=encoded,
            diff=diff,
        )

    def start_epoch(
        self, summary: Message, *, kept_from_seq: int | None, tokens_before: int, tokens_after: int
    ) -> int:
        return self.store.conversation.append_subagent(
            self.session_id, self.parent_call_id, summary, task_id=self.task_id, summary=True
        )
