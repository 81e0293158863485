"""The event log (SPEC 12): each user turn's Task lifecycle, and the interaction protocol (approvals and questions
as ``UserInteractionRequested`` / ``UserInteractionResponded``). On resume it answers two questions: did the last
task end, and is an interaction waiting for an answer that the process never got."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from engine.storage.db import Database
from engine.storage.log.records import (
    TASK_ENDINGS,
    EventRecord,
    InteractionRequested,
    InteractionResponded,
    LoggedEvent,
    PendingInteraction,
    TaskEvent,
)
from engine.storage.redact import Redactor
from engine.storage.sessions import conversation_log

_COLUMNS = "task_id, type, interaction_id, kind, purpose, display, options, answer, detail, data, created_at"
_ENDINGS_SQL = ", ".join(f"'{name}'" for name in TASK_ENDINGS)


class EventLog:
    def __init__(self, db: Database, redactor: Redactor, clock: Callable[[], str]) -> None:
        self._db = db
        self._redactor = redactor
        self._now = clock

    def record(self, session_id: str, event: LoggedEvent) -> None:
        """A task lifecycle event or an interaction. ``TaskCreated`` also titles an untitled session with its
        request."""
        event = redacted(event, self._redactor)
        with self._db.transaction() as conn:
            if isinstance(event, TaskEvent) and event.type == "TaskCreated":
                conversation_log.touch_session(conn, self._db.path, session_id, self._now(), title=event.detail or "")
            append_event(conn, session_id, event, self._now())

    def load(self, session_id: str) -> list[EventRecord]:
        with self._db.read() as conn:
            return load_events(conn, session_id)

    def pending_interaction(self, session_id: str) -> PendingInteraction | None:
        """An interaction the process died waiting for, to be asked again on resume; None when there is none."""
        with self._db.read() as conn:
            return pending_interaction(conn, session_id)


def redacted(event: LoggedEvent, redactor: Redactor) -> LoggedEvent:
    """``event`` with its text redacted: a task's detail (its request), what an interaction showed and offered,
    the data kept to ask it again, and the answer."""
    redact = redactor.redact
    if isinstance(event, TaskEvent):
        return replace(event, detail=None if event.detail is None else redact(event.detail))
    if isinstance(event, InteractionRequested):
        return replace(
            event,
            display=redact(event.display),
            options=tuple(redact(option) for option in event.options),
            data=redactor.redact_value(event.data),
        )
    return replace(event, answer=None if event.answer is None else redact(event.answer))


def append_event(conn: sqlite3.Connection, session_id: str, event: LoggedEvent, now: str) -> None:
    """``event`` is already redacted (``redacted``)."""
    row: dict[str, Any] = {"task_id": event.task_id}
    if isinstance(event, TaskEvent):
        row.update(type=event.type, detail=event.detail)
    elif isinstance(event, InteractionRequested):
        row.update(
            type="UserInteractionRequested",
            interaction_id=event.interaction_id,
            kind=event.kind,
            purpose=event.purpose,
            display=event.display,
            options=json.dumps(list(event.options), ensure_ascii=False),
            data=json.dumps(event.data, ensure_ascii=False),
        )
    else:
        row.update(
            type="UserInteractionResponded",
            interaction_id=event.interaction_id,
            answer=event.answer,
            data=json.dumps({"cancelled": event.cancelled}),
        )
    names = ", ".join(row)
    marks = ", ".join("?" for _ in row)
    conn.execute(
        f"INSERT INTO events (session_id, created_at, {names}) VALUES (?, ?, {marks})",
        (session_id, now, *row.values()),
    )


def load_events(conn: sqlite3.Connection, session_id: str) -> list[EventRecord]:
    rows = conn.execute(f"SELECT {_COLUMNS} FROM events WHERE session_id = ? ORDER BY id", (session_id,))
    return [EventRecord(_event_from_row(row), row[-1]) for row in rows]


def pending_interaction(conn: sqlite3.Connection, session_id: str) -> PendingInteraction | None:
    """The latest interaction with no answer whose task neither ended nor was followed by a newer task."""
    row = conn.execute(
        f"""
        SELECT {_COLUMNS} FROM events r
        WHERE r.session_id = :session AND r.type = 'UserInteractionRequested'
          AND NOT EXISTS (
              SELECT 1 FROM events a WHERE a.interaction_id = r.interaction_id
                AND a.session_id = :session AND a.type = 'UserInteractionResponded')
          AND NOT EXISTS (
              SELECT 1 FROM events t WHERE t.session_id = :session AND t.id > r.id
                AND (t.type = 'TaskCreated' OR (t.task_id = r.task_id AND t.type IN ({_ENDINGS_SQL}))))
        ORDER BY r.id DESC LIMIT 1
        """,
        {"session": session_id},
    ).fetchone()
    if row is None:
        return None
    request = _event_from_row(row)
    assert isinstance(request, InteractionRequested)
    return PendingInteraction(request, row[-1])


def unfinished_task_id(conn: sqlite3.Connection, session_id: str) -> str | None:
    """The session's latest task when it has no ending event (the process stopped during it)."""
    row = conn.execute(
        "SELECT task_id FROM events WHERE session_id = ? AND type = 'TaskCreated' ORDER BY id DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    if row is None:
        return None
    ended = conn.execute(
        f"SELECT 1 FROM events WHERE session_id = ? AND task_id = ? AND type IN ({_ENDINGS_SQL}) LIMIT 1",
        (session_id, row[0]),
    ).fetchone()
    return None if ended else row[0]


def _event_from_row(row: tuple[Any, ...]) -> LoggedEvent:
    task_id, event_type, interaction_id, kind, purpose, display, options, answer, detail, data, _ = row
    if event_type == "UserInteractionRequested":
        return InteractionRequested(
            interaction_id=interaction_id,
            task_id=task_id,
            kind=kind,
            purpose=purpose,
            display=display or "",
            options=tuple(json.loads(options or "[]")),
            data=json.loads(data or "{}"),
        )
    if event_type == "UserInteractionResponded":
        return InteractionResponded(
            interaction_id=interaction_id,
            task_id=task_id,
            answer=answer,
            cancelled=bool(json.loads(data or "{}").get("cancelled", False)),
        )
    return TaskEvent(type=event_type, task_id=task_id, detail=detail)
