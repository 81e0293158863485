"""The audit log (SPEC 12): every tool call, ``!`` commands and hooks included, as one row filled in two steps:
``ToolCallRequested`` (tool, actor, task, input) and ``ToolCallCompleted`` (output, is_error, duration). A row left
without completion is a call the process never saw finish. The permission log sits here too: both answer "what was
the agent allowed to do, and what did it do".

``AuditTrail`` writes each row as the one record its caller made (``records.AuditRow``), redacted and stamped when it
happens. A row either commits in its own transaction or, with ``defer``, joins the next one (``Database.defer``): a
tool call's rows ride along with the writes around it instead of costing a commit each."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from functools import partial

from engine.storage.db import Database
from engine.storage.log.records import (
    AuditEntry,
    AuditRow,
    PermissionDecided,
    PermissionEntry,
    ToolCallCompleted,
    ToolCallRequested,
)
from engine.storage.redact import Redactor

_AUDIT_COLUMNS = (
    "call_id, tool, actor, task_id, input, requested_at, output, is_error, duration_ms, completed_at"
)


class AuditTrail:
    def __init__(self, db: Database, redactor: Redactor, clock: Callable[[], str]) -> None:
        self._db = db
        self._redactor = redactor
        self._now = clock

    def record(self, row: AuditRow, *, defer: bool = False) -> None:
        """Writes ``row`` redacted. ``defer``: the row joins the next transaction (``Database.defer``) instead of
        committing its own."""
        write = partial(write_row, row=self._redacted(row), now=self._now())
        if defer:
            self._db.defer(write)
            return
        with self._db.transaction() as conn:
            write(conn)

    def entries(self, session_id: str) -> list[AuditEntry]:
        with self._db.read() as conn:
            return load_audit(conn, session_id)

    def permissions(self, session_id: str) -> list[PermissionEntry]:
        with self._db.read() as conn:
            return load_permissions(conn, session_id)

    def _redacted(self, row: AuditRow) -> AuditRow:
        redact_value = self._redactor.redact_value
        if isinstance(row, ToolCallRequested):
            return replace(row, input=redact_value(row.input))
        if isinstance(row, ToolCallCompleted):
            return replace(row, output=redact_value(row.output))
        return replace(
            row,
            arguments=redact_value(row.arguments),
            reasons=tuple(self._redactor.redact(reason) for reason in row.reasons),
        )


def write_row(conn: sqlite3.Connection, *, row: AuditRow, now: str) -> None:
    """``row`` is already redacted."""
    if isinstance(row, ToolCallRequested):
        conn.execute(
            "INSERT INTO audit_log (session_id, task_id, call_id, tool, actor, input, requested_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (row.session_id, row.task_id, row.call_id, row.tool, row.actor, _json(row.input), now),
        )
    elif isinstance(row, ToolCallCompleted):
        _complete(conn, row, now)
    else:
        _permission(conn, row, now)


def _complete(conn: sqlite3.Connection, row: ToolCallCompleted, now: str) -> None:
    """Completes the latest open row of this call id (servers reuse ids such as ``call_0`` across turns). A
    completion with no request on record still gets its own row, with an empty input: the audit keeps it."""
    encoded = _json(row.output)
    cursor = conn.execute(
        "UPDATE audit_log SET output = ?, is_error = ?, duration_ms = ?, completed_at = ? WHERE id = ("
        "SELECT MAX(id) FROM audit_log WHERE session_id = ? AND call_id = ? AND completed_at IS NULL)",
        (encoded, int(row.is_error), row.duration_ms, now, row.session_id, row.call_id),
    )
    if cursor.rowcount == 0:
        conn.execute(
            "INSERT INTO audit_log (session_id, task_id, call_id, tool, actor, input, requested_at, output, "
            "is_error, duration_ms, completed_at) VALUES (?, ?, ?, ?, ?, '{}', ?, ?, ?, ?, ?)",
            (
                row.session_id, row.task_id, row.call_id, row.tool, row.actor, now, encoded, int(row.is_error),
                row.duration_ms, now,
            ),
        )


def _permission(conn: sqlite3.Connection, row: PermissionDecided, now: str) -> None:
    conn.execute(
        "INSERT INTO permission_log (session_id, task_id, call_id, tool, arguments, decision, reasons, decided_by, "
        "rule, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            row.session_id, row.task_id, row.call_id, row.tool, _json(row.arguments), row.decision,
            _json(list(row.reasons)), row.decided_by, row.rule, now,
        ),
    )


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def load_audit(conn: sqlite3.Connection, session_id: str) -> list[AuditEntry]:
    rows = conn.execute(f"SELECT {_AUDIT_COLUMNS} FROM audit_log WHERE session_id = ? ORDER BY id", (session_id,))
    return [
        AuditEntry(
            call_id=call_id,
            tool=tool,
            actor=actor,
            task_id=task_id,
            input=json.loads(input_json),
            requested_at=requested_at,
            output=None if output is None else json.loads(output),
            is_error=None if is_error is None else bool(is_error),
            duration_ms=duration_ms,
            completed_at=completed_at,
        )
        for call_id, tool, actor, task_id, input_json, requested_at, output, is_error, duration_ms, completed_at in rows
    ]


def load_permissions(conn: sqlite3.Connection, session_id: str) -> list[PermissionEntry]:
    rows = conn.execute(
        "SELECT tool, arguments, decision, reasons, decided_by, rule, task_id, call_id, created_at "
        "FROM permission_log WHERE session_id = ? ORDER BY id",
        (session_id,),
    )
    return [
        PermissionEntry(
            tool=tool,
            arguments=json.loads(arguments),
            decision=decision,
            reasons=tuple(json.loads(reasons)),
            decided_by=decided_by,
            rule=rule,
            task_id=task_id,
            call_id=call_id,
            created_at=created_at,
        )
        for tool, arguments, decision, reasons, decided_by, rule, task_id, call_id, created_at in rows
    ]
