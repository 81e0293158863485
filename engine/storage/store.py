"""The ``Store``: the one port through which the orchestrator persists a session (SPEC 12). It owns the database
connection, applies ``Redactor`` to everything it writes, and makes every write one transaction, so a message
whose ``append_message`` returned survives a ``kill -9`` of the process.

The conversation is kept whole (see ``conversation_log``): ``load_session`` gives the model's view of the latest
context epoch, which is what a resume continues from; ``full_history`` gives every message ever made, with a
``CompactionMarker`` wherever a compaction happened and each tool message's diff, for whatever shows or cuts the
whole session (the resumed transcript, ``/export``, ``/rewind``), and ``rewind`` cuts the view without deleting
anything; ``subagent_conversations`` gives what each sub-agent said and did, by the ``task`` call that started it.

The SQL lives in the log modules (``conversation_log``, ``event_log``, ``audit_log``, ``todos``); this class
decides what is one transaction, redacts, and stamps the time. Two parts do that for themselves, and the methods
here hand on to them: ``SessionIndex`` for the sessions as a set (making, listing and resolving them, and whose
each is), ``AuditTrail`` for the tool calls and permission decisions (committed at once or deferred).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.events import TodoItem
from engine.messages import Message
from engine.storage import conversation_log, event_log, todos
from engine.storage.audit_trail import AuditTrail
from engine.storage.db import DEFAULT_BUSY_TIMEOUT_MS, Database, database_path, utc_now
from engine.storage.records import (
    Actor,
    AuditEntry,
    DecidedBy,
    EventRecord,
    HistoryEntry,
    HistoryMessage,
    LoadedSession,
    LoggedEvent,
    PendingInteraction,
    PermissionEntry,
    SessionSummary,
    TaskEvent,
)
from engine.storage.errors import StorageError
from engine.storage.provenance import StateKey
from engine.storage.redact import Redactor
from engine.storage.session_index import SessionIndex
from engine.storage.session_seals import SessionSeals
from engine.storage.state_folder import STATE_FOLDER, ensure_state_folder

if TYPE_CHECKING:
    from collections.abc import Mapping

    from engine.capture.objects import ObjectStore
    from engine.storage.undo import UndoJournal


class Store:
    def __init__(
        self,
        db: Database,
        *,
        redactor: Redactor | None = None,
        clock: Callable[[], str] = utc_now,
        seals: SessionSeals | None = None,
        origin: str = "tui",
    ) -> None:
        """``seals`` tells this user's sessions from foreign ones (SPEC 19); ``open`` always gives it. Without it
        (a store made directly on a database, as tests of the logs do) every session counts as this user's."""
        self.db = db
        self._redactor = redactor or Redactor()
        self._now = clock
        self.seals = seals
        # Where the sessions this store makes are used (SPEC 12: "tui", "headless", "acp").
        self.origin = origin
        self._sessions = SessionIndex(db, self._redactor, clock, seals)
        self._audit = AuditTrail(db, self._redactor, clock)
        # Set by ``open`` when an empty database was rebuilt from the session snapshots: one note per session.
        self.rebuilt: list[str] = []

    @classmethod
    def open(
        cls,
        workspace: Path,
        *,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
        environ: Mapping[str, str] | None = None,
        state_key: StateKey | None = None,
        origin: str = "tui",
    ) -> Store:
        """Opens ``<workspace>/.coder/coder.db`` (making ``.coder/`` with its ``.gitignore`` first, or refusing one
        that is a link, not a folder or not the user's); ``environ`` names the secrets to redact (default:
        os.environ); ``state_key`` is the user's (default: the one in the user's config folder); ``origin``: where the
        sessions it makes are used."""
        try:
            ensure_state_folder(workspace)
        except OSError as exc:
            raise StorageError(f"cannot create {workspace / STATE_FOLDER}: {exc.strerror or exc}") from exc
        from engine.storage.rebuild import needs_rebuild, rebuild_from_snapshots

        seals = SessionSeals(state_key or StateKey.load(environ), workspace)
        path = database_path(workspace)
        empty = needs_rebuild(path)
        store = cls(
            Database.open(path, busy_timeout_ms=busy_timeout_ms), redactor=Redactor(environ), seals=seals, origin=origin
        )
        if empty:
            store.rebuilt = rebuild_from_snapshots(store, workspace)
        with store.db.transaction() as conn:
            seals.forget_legacy(conn)
        return store

    @property
    def path(self) -> Path:
        return self.db.path

    def close(self) -> None:
        self.db.close()

    def settle(self) -> None:
        """At a quiet moment (an input has ended): the database's deferred upkeep (``Database.checkpoint``)."""
        self.db.checkpoint()

    # -- sessions (``SessionIndex``) ----------------------------------------------------------------------------
    def create_session(
        self, *, model: str, mode: str, session_id: str | None = None, title: str = "", own: bool = True
    ) -> str:
        return self._sessions.create(
            model=model, mode=mode, session_id=session_id, title=title, own=own, origin=self.origin
        )

    def is_own(self, session_id: str) -> bool:
        return self._sessions.is_own(session_id)

    def file_seal(self, session_id: str) -> str | None:
        return self._sessions.file_seal(session_id)

    def update_session(
        self, session_id: str, *, model: str | None = None, mode: str | None = None, title: str = ""
    ) -> None:
        self._sessions.update(session_id, model=model, mode=mode, title=title)

    def list_sessions(self, limit: int = 20) -> list[SessionSummary]:
        return self._sessions.summaries(limit)

    def latest_session_id(self) -> str | None:
        """The session ``--continue`` takes: the full screen's latest one there, elsewhere the latest of any kind."""
        return self._sessions.latest_id("tui" if self.origin == "tui" else None)

    def resolve_session_id(self, session_ref: str) -> str:
        return self._sessions.resolve(session_ref)

    # -- conversation -------------------------------------------------------------------------------------------
    def load_session(self, session_id: str) -> LoadedSession:
        """The session's metadata and the model's view of its latest context epoch, in order. ``session_id`` may be
        a unique prefix of an id; an unknown one raises ``UnknownSession`` saying how to see the ids."""
        with self.db.read() as conn:
            resolved = conversation_log.resolve_session_id(conn, self.path, session_id)
            info = conversation_log.summary(conn, resolved)
            assert info is not None
            epoch, rows = conversation_log.load_view(conn, resolved)
            unfinished = event_log.unfinished_task_id(conn, resolved)
        return LoadedSession(
            info=info,
            messages=[Message.from_record(json.loads(record)) for _, record in rows],
            unfinished_task_id=unfinished,
            seqs=tuple(seq for seq, _ in rows),
            encoded=tuple(record for _, record in rows),
            epoch=epoch,
        )

    def full_history(self, session_id: str) -> list[HistoryEntry]:
        """Every message the session ever made, all context epochs, in order: ``HistoryMessage`` (with its epoch and,
        for a tool message, the diff it showed) and, where a compaction happened, a ``CompactionMarker`` ("context
        compacted here", holding the summary the model saw from then on). For the resumed transcript, ``/export``
        and ``/rewind``. An unknown id raises ``UnknownSession``."""
        with self.db.read() as conn:
            resolved = conversation_log.resolve_session_id(conn, self.path, session_id)
            return conversation_log.load_history(conn, resolved)

    def subagent_conversations(self, session_id: str) -> dict[str, list[HistoryMessage]]:
        """Each sub-agent's conversation (its prompt, answers, tool calls and results, diffs), keyed by the id of
        the ``task`` tool call that started it."""
        with self.db.read() as conn:
            return conversation_log.load_subagent_messages(conn, session_id)

    def append_message(
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
        with self.db.transaction() as conn:
            conversation_log.touch_session(conn, self.path, session_id, self._now(), title=title)
            return conversation_log.append_message(
                conn, session_id, message.role, record, self._now(), diff=diff,
                encoded=encoded if redacted is not None else None,
            )

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
        with self.db.transaction() as conn:
            conversation_log.touch_session(conn, self.path, session_id, self._now())
            return conversation_log.start_epoch(
                conn,
                session_id,
                record,
                kept_from_seq=kept_from_seq,
                tokens_before=tokens_before,
                tokens_after=tokens_after,
                now=self._now(),
            )

    def append_messages(self, session_id: str, messages: Sequence[Message]) -> list[int]:
        """Appends several messages in one transaction (a ``/fork`` copying a conversation); returns their
        positions."""
        records = [(m, self._redactor.redact_value(m.to_record())) for m in messages]
        with self.db.transaction() as conn:
            conversation_log.touch_session(conn, self.path, session_id, self._now())
            now = self._now()
            return [conversation_log.append_message(conn, session_id, m.role, r, now) for m, r in records]

    def rewind(self, session_id: str, from_seq: int) -> int:
        """``/rewind``: cuts the conversation just before the message at position ``from_seq``. That message and
        the later ones leave the model's view (``load_session``) but stay in ``full_history``, marked ``rewound``.
        Returns how many messages were cut."""
        with self.db.transaction() as conn:
            conversation_log.touch_session(conn, self.path, session_id, self._now())
            return conversation_log.rewind(conn, session_id, from_seq)

    def insert_messages(self, session_id: str, insertions: Sequence[tuple[int, Message]]) -> list[int]:
        """Inserts messages into the history, each right after the message at the given position (in history
        order), in one transaction; returns their positions. Resume uses it to repair a history."""
        rows = [(after, m.role, self._redactor.redact_value(m.to_record())) for after, m in insertions]
        with self.db.transaction() as conn:
            conversation_log.touch_session(conn, self.path, session_id, self._now())
            return conversation_log.insert_messages(conn, session_id, rows, self._now())

    def append_subagent_message(
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
        for ``append_message``."""
        record = redacted if redacted is not None else self._redactor.redact_value(message.to_record())
        diff = None if diff is None else self._redactor.redact(diff)
        kind = "summary" if summary else "message"
        with self.db.transaction() as conn:
            return conversation_log.append_subagent_message(
                conn, session_id, parent_call_id, task_id, message.role, record, self._now(), diff=diff, kind=kind,
                encoded=encoded if redacted is not None else None,
            )

    # -- events -------------------------------------------------------------------------------------------------
    def record_event(self, session_id: str, event: LoggedEvent) -> None:
        """A task lifecycle event or an interaction. ``TaskCreated`` also titles an untitled session with its
        request."""
        event = event_log.redacted(event, self._redactor)
        with self.db.transaction() as conn:
            if isinstance(event, TaskEvent) and event.type == "TaskCreated":
                conversation_log.touch_session(conn, self.path, session_id, self._now(), title=event.detail or "")
            event_log.append_event(conn, session_id, event, self._now())

    def compactions(self, session_id: str) -> int:
        """How many times the session's conversation was compacted (each began a context epoch)."""
        with self.db.read() as conn:
            return conversation_log.compactions(conn, session_id)

    def events(self, session_id: str) -> list[EventRecord]:
        with self.db.read() as conn:
            return event_log.load_events(conn, session_id)

    def pending_interaction(self, session_id: str) -> PendingInteraction | None:
        """An interaction the process died waiting for, to be asked again on resume; None when there is none."""
        with self.db.read() as conn:
            return event_log.pending_interaction(conn, session_id)

    # -- audit and permissions (``AuditTrail``) -----------------------------------------------------------------
    def record_tool_call_requested(
        self, session_id: str, *, call_id: str, tool: str, input: dict[str, Any], actor: Actor = "model",
        task_id: str | None = None, defer: bool = False,
    ) -> None:
        self._audit.tool_call_requested(
            session_id, call_id=call_id, tool=tool, input=input, actor=actor, task_id=task_id, defer=defer
        )

    def record_tool_call_completed(
        self, session_id: str, *, call_id: str, tool: str, output: dict[str, Any], is_error: bool,
        duration_ms: float | None, actor: Actor = "model", task_id: str | None = None, defer: bool = False,
    ) -> None:
        self._audit.tool_call_completed(
            session_id, call_id=call_id, tool=tool, output=output, is_error=is_error, duration_ms=duration_ms,
            actor=actor, task_id=task_id, defer=defer,
        )

    def audit_entries(self, session_id: str) -> list[AuditEntry]:
        return self._audit.entries(session_id)

    def record_permission(
        self, session_id: str, *, tool: str, arguments: dict[str, Any], decision: str, reasons: Sequence[str],
        decided_by: DecidedBy, rule: str | None = None, task_id: str | None = None, call_id: str | None = None,
        defer: bool = False,
    ) -> None:
        self._audit.permission_decided(
            session_id, tool=tool, arguments=arguments, decision=decision, reasons=reasons, decided_by=decided_by,
            rule=rule, task_id=task_id, call_id=call_id, defer=defer,
        )

    def permission_entries(self, session_id: str) -> list[PermissionEntry]:
        return self._audit.permissions(session_id)

    # -- todos and undo -----------------------------------------------------------------------------------------
    def save_todos(self, session_id: str, items: Sequence[TodoItem]) -> None:
        redacted = [TodoItem(item.id, self._redactor.redact(item.content), item.status) for item in items]
        with self.db.transaction() as conn:
            todos.replace_todos(conn, session_id, redacted)

    def load_todos(self, session_id: str) -> list[TodoItem]:
        with self.db.read() as conn:
            return todos.load_todos(conn, session_id)

    def undo_journal(
        self, session_id: str, workspace_root: Path, *, max_turns: int, objects: ObjectStore | None = None
    ) -> UndoJournal:
        """The per-turn file snapshots of this session (``undo.max_turns`` deep), sharing this connection; their
        content in ``objects``, the capture's content store (default: the workspace's, opened here)."""
        from engine.storage.undo import UndoJournal

        if not self.is_own(session_id):
            # A foreign session's journal came with it: its turns are never undone (SPEC 19). Turns made from now on
            # are this user's and go on a fresh stack.
            with self.db.transaction() as conn:
                conn.execute("DELETE FROM undo_turns WHERE session_id = ?", (session_id,))
                conn.execute("DELETE FROM undo_baselines WHERE session_id = ?", (session_id,))
        return UndoJournal(
            self.db, session_id, workspace_root, max_turns=max_turns, objects=objects, clock=self._now,
            redact=self._redactor.redact,
        )

    def commit_deferred(self) -> None:
        """Commits the rows written with ``defer=True`` that no transaction has taken yet."""
        self.db.commit_deferred()
