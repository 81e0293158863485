"""The audit trail as the store keeps it (SPEC 12): each tool call's two rows (requested, completed) and each
permission decision, redacted and stamped when they happen. A row either commits in its own transaction or, with
``defer``, joins the next one (``Database.defer``): a tool call's rows ride along with the writes around it instead of
costing a commit each. The SQL is in ``audit_log``."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from engine.storage import audit_log
from engine.storage.db import Database
from engine.storage.records import Actor, AuditEntry, DecidedBy, PermissionEntry
from engine.storage.redact import Redactor


class AuditTrail:
    def __init__(self, db: Database, redactor: Redactor, clock: Callable[[], str]) -> None:
        self._db = db
        self._redactor = redactor
        self._now = clock

    def tool_call_requested(
        self,
        session_id: str,
        *,
        call_id: str,
        tool: str,
        input: dict[str, Any],
        actor: Actor,
        task_id: str | None,
        defer: bool,
    ) -> None:
        """``defer``: the row joins the next transaction (``Database.defer``) instead of committing its own."""
        self._write(
            partial(
                audit_log.tool_call_requested,
                session_id=session_id,
                call_id=call_id,
                tool=tool,
                actor=actor,
                task_id=task_id,
                input=self._redactor.redact_value(input),
                now=self._now(),
            ),
            defer,
        )

    def tool_call_completed(
        self,
        session_id: str,
        *,
        call_id: str,
        tool: str,
        output: dict[str, Any],
        is_error: bool,
        duration_ms: float | None,
        actor: Actor,
        task_id: str | None,
        defer: bool,
    ) -> None:
        """``defer``: as for ``tool_call_requested``."""
        self._write(
            partial(
                audit_log.tool_call_completed,
                session_id=session_id,
                call_id=call_id,
                tool=tool,
                actor=actor,
                task_id=task_id,
                output=self._redactor.redact_value(output),
                is_error=is_error,
                duration_ms=duration_ms,
                now=self._now(),
            ),
            defer,
        )

    def permission_decided(
        self,
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
        defer: bool,
    ) -> None:
        """``defer``: as for ``tool_call_requested``."""
        self._write(
            partial(
                audit_log.permission_decided,
                session_id=session_id,
                tool=tool,
                arguments=self._redactor.redact_value(arguments),
                decision=decision,
                reasons=[self._redactor.redact(reason) for reason in reasons],
                decided_by=decided_by,
                rule=rule,
                task_id=task_id,
                call_id=call_id,
                now=self._now(),
            ),
            defer,
        )

    def entries(self, session_id: str) -> list[AuditEntry]:
        with self._db.read() as conn:
            return audit_log.load_audit(conn, session_id)

    def permissions(self, session_id: str) -> list[PermissionEntry]:
        with self._db.read() as conn:
            return audit_log.load_permissions(conn, session_id)

    def _write(self, write: Callable[[sqlite3.Connection], object], defer: bool) -> None:
        if defer:
            self._db.defer(write)
            return
        with self._db.transaction() as conn:
            write(conn)
