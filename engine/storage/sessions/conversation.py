"""A session's conversation (SPEC 12), kept whole: each message is written as it is made, in its own transaction,
redacted and stamped, so a message whose ``append`` returned survives a ``kill -9`` of the process.

``load`` gives the model's view of the latest context epoch, which is what a resume continues from; ``history``
gives every message ever made, with a ``CompactionMarker`` wherever a compaction happened and each tool message's
diff, for whatever shows or cuts the whole session (the resumed transcript, ``/export``, ``/rewind``), and
``rewind`` cuts the view without deleting anything; ``subagent_conversations`` gives what each sub-agent said and
did, by the ``task`` call that started it. The SQL is in ``conversation_log``."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from engine.messages import Message
from engine.storage.db import Database
from engine.storage.log.events import unfinished_task_id
from engine.storage.redact import Redactor
from engine.storage.sessions import conversation_log
from engine.storage.sessions.records import HistoryEntry, HistoryMessage, LoadedSession


class Conversation:
    def __init__(self, db: Database, redactor: Redactor, clock: Callable[[], str]) -> None:
        self._db = db
        self._redactor = redactor
        self._now = clock

    def load(self, session_id: str) -> LoadedSession:
        """The session's metadata and the model's view of its latest context epoch, in order. ``session_id`` may be
        a unique prefix of an id; an unknown one raises ``UnknownSession`` saying how to see the ids."""
        with self._db.read() as conn:
            resolved = conversation_log.resolve_session_id(conn, self._db.path, session_id)
            info = conversation_log.summary(conn, resolved)
            assert info is not None
            epoch, rows = conversation_log.load_view(conn, resolved)
            unfinished = unfinished_task_id(conn, resolved)
        return LoadedSession(
            info=info,
            messages=[Message.from_record(json.loads(record)) for _, record in rows],
            unfinished_task_id=unfinished,
            seqs=tuple(seq for seq, _ in rows),
            encoded=tuple(record for _, record in rows),
            epoch=epoch,
        )

    def history(self, session_id: str) -> list[HistoryEntry]:
        """Every message the session ever made, all context epochs, in order: ``HistoryMessage`` (with its epoch and,
        for a tool message, the diff it showed) and, where a compaction happened, a ``CompactionMarker`` ("context
        compacted here", holding the summary the model saw from then on). An unknown id raises ``UnknownSession``."""
        with self._db.read() as conn:
            resolved = conversation_log.resolve_session_id(conn, self._db.path, session_id)
            return conversation_log.load_history(conn, resolved)

    def subagent_conversations(self, session_id: str) -> dict[str, list[HistoryMessage]]:
        """Each sub-agent's conversation (its prompt, answers, tool calls and results, diffs), keyed by the id of
        the ``task`` tool call that started it."""
        with self._db.read() as conn:
            return conversation_log.load_subagent_messages(conn, session_id)

    def compactions(self, session_id: str) -> int:
        """How many times the session's conversation was compacted (each began a context epoch)."""
        with self._db.read() as conn:
            return conversation_log.compactions(conn, session_id)

    def append(
        self,
        session_id: str,
        message: Message,
        *,
        redacted: dict[str, Any] | None = None,
        encoded: str | None = None,
        diff: str | None = None,
    ) -> int:
        """Writes one message, in its own transaction, and returns its position in the session's history.
        ``redacted``: the message's record already redacted by the caller (who needs it too), saving a second pass;
        ``encoded``: that record's JSON text, when the caller made it too.
        ``diff``: what a tool message showed (a write's or an edit's diff), kept beside the message for the
        transcript and never sent to the model."""
        record = redacted if redacted is not None else self._redactor.redact_value(message.to_record())
        title = (record.get("content") or "") if message.role == "user" else ""
        diff = None if diff is None else self._redactor.redact(diff)
        with self._db.transaction() as conn:
            conversation_log.touch_session(conn, self._db.path, session_id, self._now(), title=title)
            return conversation_log.append_message(
                conn, session_id, message.role, record, self._now(), diff=diff,
                encoded=encoded if redacted is not None else None,
            )

    def append_many(self, session_id: str, messages: Sequence[Message]) -> list[int]:
        """Appends several messages in one transaction (a ``/fork`` copying a conversation); returns their
        positions."""
        records = [(m, self._redactor.redact_value(m.to_record())) for m in messages]
        with self._db.transaction() as conn:
            conversation_log.touch_session(conn, self._db.path, session_id, self._now())
            now = self._now()
            return [conversation_log.append_message(conn, session_id, m.role, r, now) for m, r in records]

    def start_epoch(
        self,
        session_id: str,
        summary: Message,
        *,
        kept_from_seq: int | None,
        tokens_before: int,
        tokens_after: int,
    ) -> tuple[int, int]:
        """Records a compaction, in one transaction: ``summary`` is appended and a new context epoch starts, whose
        view is the summary then the messages from ``kept_from_seq`` on (None: none kept). Nothing is deleted.
        Returns the new epoch and the summary's position."""
        record = self._redactor.redact_value(summary.to_record())
        with self._db.transaction() as conn:
            conversation_log.touch_session(conn, self._db.path, session_id, self._now())
            return conversation_log.start_epoch(
                conn,
                session_id,
                record,
                kept_from_seq=kept_from_seq,
                tokens_before=tokens_before,
                tokens_after=tokens_after,
                now=self._now(),
            )

    def rewind(self, session_id: str, from_seq: int) -> int:
        """``/rewind``: cuts the conversation just before the message at position ``from_seq``. That message and
        the later ones leave the model's view (``load``) but stay in ``history``, marked ``rewound``. Returns how
        many messages were cut."""
        with self._db.transaction() as conn:
            conversation_log.touch_session(conn, self._db.path, session_id, self._now())
            return conversation_log.rewind(conn, session_id, from_seq)

    def insert(self, session_id: str, insertions: Sequence[tuple[int, Message]]) -> list[int]:
        """Inserts messages into the history, each right after the message at the given position (in history
        order), in one transaction; returns their positions. Resume uses it to repair a history."""
        rows = [(after, m.role, self._redactor.redact_value(m.to_record())) for after, m in insertions]
        with self._db.transaction() as conn:
            conversation_log.touch_session(conn, self._db.path, session_id, self._now())
            return conversation_log.insert_messages(conn, session_id, rows, self._now())

    def append_subagent(
        self,
        session_id: str,
        parent_call_id: str,
        message: Message,
        *,
        task_id: str | None = None,
        redacted: dict[str, Any] | None = None,
        encoded: str | None = None,
        diff: str | None = None,
        summary: bool = False,
    ) -> int:
        """One message of the sub-agent started by the ``task`` call ``parent_call_id`` (of task ``task_id``);
        ``summary``: the summary of a compaction of the sub-agent's own context; ``redacted`` and ``encoded``: as
        for ``append``."""
        record = redacted if redacted is not None else self._redactor.redact_value(message.to_record())
        diff = None if diff is None else self._redactor.redact(diff)
        kind = "summary" if summary else "message"
        with self._db.transaction() as conn:
            return conversation_log.append_subagent_message(
                conn, session_id, parent_call_id, task_id, message.role, record, self._now(), diff=diff, kind=kind,
                encoded=encoded if redacted is not None else None,
            )
