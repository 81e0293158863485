"""The conversation log (SPEC 12): sessions and their LLM messages, one row per message, written as it is made.

Functions here take an open connection (inside the caller's transaction) and already-redacted values; the
``Store`` decides transactions, redaction and the clock.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from engine.messages import Message
from engine.storage.errors import UnknownSession
from engine.storage.records import SessionSummary

TITLE_MAX_CHARS = 80

_HAS_MESSAGES = "EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id)"
_SUMMARY_COLUMNS = (
    "s.id, s.title, s.created_at, s.updated_at, s.model, s.mode, "
    "(SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id)"
)


def make_title(text: str) -> str:
    """The first request as a one-line title: white space collapsed, cut at ``TITLE_MAX_CHARS`` with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= TITLE_MAX_CHARS else line[: TITLE_MAX_CHARS - 1].rstrip() + "…"


def create_session(conn: sqlite3.Connection, session_id: str, *, model: str, mode: str, title: str, now: str) -> None:
    conn.execute(
        "INSERT INTO sessions (id, created_at, updated_at, title, model, mode) VALUES (?, ?, ?, ?, ?, ?)",
        (session_id, now, now, make_title(title), model, mode),
    )


def touch_session(
    conn: sqlite3.Connection,
    db_path: Path,
    session_id: str,
    now: str,
    *,
    title: str = "",
    model: str | None = None,
    mode: str | None = None,
) -> None:
    """Sets ``updated_at`` (and the title when it is still empty, the model, the mode when given); an unknown
    session raises ``UnknownSession`` before anything else is written."""
    cursor = conn.execute(
        "UPDATE sessions SET updated_at = ?, title = CASE WHEN title = '' THEN ? ELSE title END, "
        "model = COALESCE(?, model), mode = COALESCE(?, mode) WHERE id = ?",
        (now, make_title(title), model, mode, session_id),
    )
    if cursor.rowcount == 0:
        raise unknown_session(conn, db_path, session_id)


def append_message(conn: sqlite3.Connection, session_id: str, role: str, record: dict[str, Any], now: str) -> int:
    """Inserts the message after the session's last one and returns its position (0, 1, 2...)."""
    row = conn.execute(
        "INSERT INTO messages (session_id, seq, role, record, created_at) "
        "SELECT ?, COALESCE(MAX(seq), -1) + 1, ?, ?, ? FROM messages WHERE session_id = ? RETURNING seq",
        (session_id, role, json.dumps(record, ensure_ascii=False), now, session_id),
    ).fetchone()
    return int(row[0])


def replace_messages(
    conn: sqlite3.Connection, session_id: str, records: list[tuple[str, dict[str, Any]]], now: str
) -> None:
    conn.execute("DELETE FROM messages WHERE session_id = ?", (session_id,))
    conn.executemany(
        "INSERT INTO messages (session_id, seq, role, record, created_at) VALUES (?, ?, ?, ?, ?)",
        [
            (session_id, seq, role, json.dumps(record, ensure_ascii=False), now)
            for seq, (role, record) in enumerate(records)
        ],
    )


def load_messages(conn: sqlite3.Connection, session_id: str) -> list[Message]:
    rows = conn.execute("SELECT record FROM messages WHERE session_id = ? ORDER BY seq", (session_id,))
    return [Message.from_record(json.loads(record)) for (record,) in rows]


def summaries(conn: sqlite3.Connection, limit: int) -> list[SessionSummary]:
    """The most recently updated sessions first, leaving out sessions with no message: every start of coder-tui
    makes a session, and one the user never typed into is nothing to resume."""
    rows = conn.execute(
        f"SELECT {_SUMMARY_COLUMNS} FROM sessions s WHERE {_HAS_MESSAGES} "
        "ORDER BY s.updated_at DESC, s.rowid DESC LIMIT ?",
        (limit,),
    )
    return [SessionSummary(*row) for row in rows]


def summary(conn: sqlite3.Connection, session_id: str) -> SessionSummary | None:
    row = conn.execute(f"SELECT {_SUMMARY_COLUMNS} FROM sessions s WHERE s.id = ?", (session_id,)).fetchone()
    return SessionSummary(*row) if row else None


# A session in which the model was asked something: a run of only ``!`` or ``/`` commands has no task.
_HAS_TURN = "EXISTS (SELECT 1 FROM events e WHERE e.session_id = s.id AND e.type = 'TaskCreated')"


def latest_session_id(conn: sqlite3.Connection) -> str | None:
    """The session ``--continue`` resumes: the most recently updated one with a conversation with the model, so
    that ``coder-tui -p '!git status'`` between two turns does not become the session to continue (its messages
    stay stored and can still be resumed by id)."""
    row = conn.execute(
        f"SELECT s.id FROM sessions s WHERE {_HAS_MESSAGES} AND {_HAS_TURN} "
        "ORDER BY s.updated_at DESC, s.rowid DESC LIMIT 1"
    ).fetchone()
    return row[0] if row else None


def resolve_session_id(conn: sqlite3.Connection, db_path: Path, wanted: str) -> str:
    """The id itself, or the one session whose id starts with ``wanted``; otherwise ``UnknownSession``."""
    wanted = wanted.strip()
    if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (wanted,)).fetchone():
        return wanted
    matches = [
        row[0]
        for row in conn.execute(
            "SELECT id FROM sessions WHERE substr(id, 1, ?) = ? ORDER BY updated_at DESC LIMIT 6",
            (len(wanted), wanted),
        )
    ]
    if len(matches) == 1 and wanted:
        return matches[0]
    if len(matches) > 1 and wanted:
        shown = ", ".join(matches[:5]) + (", ..." if len(matches) > 5 else "")
        raise UnknownSession(f"session id {wanted!r} is ambiguous: it starts {shown}; give more of the id")
    raise unknown_session(conn, db_path, wanted)


def unknown_session(conn: sqlite3.Connection, db_path: Path, wanted: str) -> UnknownSession:
    recent = [row[0] for row in conn.execute("SELECT id FROM sessions ORDER BY updated_at DESC LIMIT 5")]
    known = f" Recent sessions: {', '.join(recent)}." if recent else " There are no sessions yet."
    return UnknownSession(
        f"no session {wanted!r} in {db_path}.{known} Type /resume with no id to pick one from the list, or start "
        "coder-tui with --continue to resume the latest."
    )
