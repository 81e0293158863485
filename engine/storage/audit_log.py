"""The audit log (SPEC 12): every tool call, ``!`` commands included, as one row filled in two steps:
``ToolCallRequested`` (tool, actor, task, input) and ``ToolCallCompleted`` (output, is_error, duration). A row
left without completion is a call the process never saw finish. The permission log sits here too: both answer
"what was the agent allowed to do, and what did it do"."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from engine.storage.records import Actor, AuditEntry, DecidedBy, PermissionEntry

_AUDIT_COLUMNS = (
    "call_id, tool, actor, task_id, input, requested_at, output, is_error, duration_ms, completed_at"
)


def tool_call_requested(
    conn: sqlite3.Connection,
    session_id: str,
    *,
    call_id: str,
    tool: str,
    actor: Actor,
    task_id: str | None,
    input: dict[str, Any],
    now: str,
) -> None:
    conn.execute(
        "INSERT INTO audit_log (session_id, task_id, call_id, tool, actor, input, requested_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (session_id, task_id, call_id, tool, actor, json.dumps(input, ensure_ascii=False), now),
    )


def tool_call_completed(
    conn: sqlite3.Connection,
    session_id: str,
    *,
    call_id: str,
    tool: str,
    actor: Actor,
    task_id: str | None,
    output: dict[str, Any],
    is_error: bool,
    duration_ms: float | None,
    now: str,
) -> None:
    """Completes the latest open row of this call id (servers reuse ids such as ``call_0`` across turns). A
    completion with no request on record still gets its own row, with an empty input: the audit keeps it."""
    encoded = json.dumps(output, ensure_ascii=False)
    cursor = conn.execute(
        "UPDATE audit_log SET output = ?, is_error = ?, duration_ms = ?, completed_at = ? WHERE id = ("
        "SELECT MAX(id) FROM audit_log WHERE session_id = ? AND call_id = ? AND completed_at IS NULL)",
        (encoded, int(is_error), duration_ms, now, session_id, call_id),
    )
    if cursor.rowcount == 0:
        conn.execute(
            "INSERT INTO audit_log (session_id, task_id, call_id, tool, actor, input, requested_at, output, "
            "is_error, duration_ms, completed_at) VALUES (?, ?, ?, ?, ?, '{}', ?, ?, ?, ?, ?)",
            (session_id, task_id, call_id, tool, actor, now, encoded, int(is_error), duration_ms, now),
        )


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


def permission_decided(
    conn: sqlite3.Connection,
    session_id: str,
    *,
    tool: str,
    arguments: dict[str, Any],
    decision: str,
    reasons: Sequence[str],
    decided_by: DecidedBy,
    rule: str | None,
    task_id: str | None,
    call_id: str | None,
    now: str,
) -> None:
    conn.execute(
        "INSERT INTO permission_log (session_id, task_id, call_id, tool, arguments, decision, reasons, decided_by, "
        "rule, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            session_id,
            task_id,
            call_id,
            tool,
            json.dumps(arguments, ensure_ascii=False),
            decision,
            json.dumps(list(reasons), ensure_ascii=False),
            decided_by,
            rule,
            now,
        ),
    )


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
