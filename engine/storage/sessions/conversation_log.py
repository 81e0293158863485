"""The conversation log (SPEC 12): sessions and their LLM messages, one row per message, written as it is made.

Nothing is ever deleted from it. A compaction appends its summary as a row of kind ``summary`` and starts a new
context epoch (a ``context_epochs`` row): the model's view is then that summary followed by the messages from
``kept_from_seq`` on, while every earlier message stays, in order, marked with the epoch it was made in. ``seq``
orders the whole history, summaries included, so a summary row sits exactly where its compaction happened.
A ``/rewind`` cuts the view by marking the messages from the cut on ``rewound``: they leave the view and stay in
the history.

A tool message's diff is kept in its own column, beside the record the model sees. A sub-agent's conversation
lives in ``subagent_messages``, keyed by the ``task`` call that started it.

Functions here take an open connection (inside the caller's transaction) and already-redacted values; the
caller (``Conversation``, ``SessionIndex``) decides transactions, redaction and the clock.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from engine.storage.errors import UnknownSession
from engine.storage.sessions.records import CompactionMarker, HistoryEntry, HistoryMessage, SessionSummary

if TYPE_CHECKING:
    from engine.messages import Message

TITLE_MAX_CHARS = 80

_HAS_MESSAGES = "EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id)"
_SUMMARY_COLUMNS = (
    "s.id, s.title, s.created_at, s.updated_at, s.model, s.mode, "
    "(SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id AND m.kind = 'message' AND m.rewound = 0), s.origin"
)
_CURRENT_EPOCH = "(SELECT COALESCE(MAX(epoch), 0) FROM context_epochs WHERE session_id = ?)"


def make_title(text: str) -> str:
    """The first request as a one-line title: white space collapsed, cut at ``TITLE_MAX_CHARS`` with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= TITLE_MAX_CHARS else line[: TITLE_MAX_CHARS - 1].rstrip() + "…"


def create_session(
    conn: sqlite3.Connection, session_id: str, *, model: str, mode: str, title: str, now: str, origin: str = "tui"
) -> None:
    conn.execute(
        "INSERT INTO sessions (id, created_at, updated_at, title, model, mode, origin) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (session_id, now, now, make_title(title), model, mode, origin),
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


def rename_session(conn: sqlite3.Connection, db_path: Path, session_id: str, title: str) -> None:
    """Sets the title, whatever it was (``touch_session`` only fills an empty one); the session keeps its place
    in the list."""
    cursor = conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (make_title(title), session_id))
    if cursor.rowcount == 0:
        raise unknown_session(conn, db_path, session_id)


def append_message(
    conn: sqlite3.Connection,
    session_id: str,
    role: str,
    record: dict[str, Any],
    now: str,
    *,
    diff: str | None = None,
    encoded: str | None = None,
) -> int:
    """Inserts the message after the session's last one, in the current context epoch, and returns its position.
    ``encoded``: ``record`` as JSON text, when the caller has it already."""
    text = encoded if encoded is not None else json.dumps(record, ensure_ascii=False)
    row = conn.execute(
        "INSERT INTO messages (session_id, seq, role, record, created_at, diff, epoch) "
        f"SELECT ?, COALESCE(MAX(seq), -1) + 1, ?, ?, ?, ?, {_CURRENT_EPOCH} FROM messages WHERE session_id = ? "
        "RETURNING seq",
        (session_id, role, text, now, diff, session_id, session_id),
    ).fetchone()
    return int(row[0])


def start_epoch(
    conn: sqlite3.Connection,
    session_id: str,
    summary: dict[str, Any],
    *,
    kept_from_seq: int | None,
    tokens_before: int,
    tokens_after: int,
    now: str,
) -> tuple[int, int]:
    """A compaction: appends the ``summary`` record and starts the next epoch, whose view is that summary then the
    messages from ``kept_from_seq`` on. Returns the new epoch and the summary's position."""
    epoch = conn.execute(f"SELECT {_CURRENT_EPOCH}", (session_id,)).fetchone()[0] + 1
    seq = conn.execute(
        "INSERT INTO messages (session_id, seq, role, record, created_at, epoch, kind) "
        "SELECT ?, COALESCE(MAX(seq), -1) + 1, 'user', ?, ?, ?, 'summary' FROM messages WHERE session_id = ? "
        "RETURNING seq",
        (session_id, json.dumps(summary, ensure_ascii=False), now, epoch, session_id),
    ).fetchone()[0]
    conn.execute(
        "INSERT INTO context_epochs (session_id, epoch, summary_seq, kept_from_seq, tokens_before, tokens_after, "
        "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (session_id, epoch, seq, kept_from_seq, tokens_before, tokens_after, now),
    )
    return int(epoch), int(seq)


def load_view(conn: sqlite3.Connection, session_id: str) -> tuple[int, list[tuple[int, str]]]:
    """The model's view of the latest epoch as ``(seq, record JSON)`` rows: the epoch's summary first, then every
    ordinary message from its ``kept_from_seq`` on (epoch 0: every ordinary message)."""
    latest = conn.execute(
        "SELECT epoch, summary_seq, kept_from_seq FROM context_epochs WHERE session_id = ? "
        "ORDER BY epoch DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    if latest is None:
        rows = conn.execute(
            "SELECT seq, record FROM messages WHERE session_id = ? AND kind = 'message' AND rewound = 0 ORDER BY seq",
            (session_id,),
        ).fetchall()
        return 0, rows
    epoch, summary_seq, kept_from = latest
    summary = conn.execute(
        "SELECT seq, record FROM messages WHERE session_id = ? AND seq = ?", (session_id, summary_seq)
    ).fetchall()
    # No message kept (``kept_from`` NULL): only the ones made after the summary.
    start = summary_seq + 1 if kept_from is None else kept_from
    rows = conn.execute(
        "SELECT seq, record FROM messages WHERE session_id = ? AND kind = 'message' AND rewound = 0 AND seq >= ? "
        "ORDER BY seq",
        (session_id, start),
    ).fetchall()
    return int(epoch), summary + rows


def compactions(conn: sqlite3.Connection, session_id: str) -> int:
    """How many times the session's conversation was compacted: each compaction began a context epoch."""
    (count,) = conn.execute("SELECT COUNT(*) FROM context_epochs WHERE session_id = ?", (session_id,)).fetchone()
    return int(count)


def rewind(conn: sqlite3.Connection, session_id: str, from_seq: int) -> int:
    """Cuts the view just before the message at ``from_seq``: it and every later message are marked rewound (kept in
    the history, out of the view). Returns how many were marked."""
    return conn.execute(
        "UPDATE messages SET rewound = 1 WHERE session_id = ? AND kind = 'message' AND rewound = 0 AND seq >= ?",
        (session_id, from_seq),
    ).rowcount


def insert_messages(
    conn: sqlite3.Connection, session_id: str, insertions: list[tuple[int, str, dict[str, Any]]], now: str
) -> list[int]:
    """Inserts ``(after_seq, role, record)`` messages, in history order, each right after the message that was at
    ``after_seq`` (several with the same ``after_seq`` keep their order), moving the later ones down. Returns their
    positions. Used when resume repairs a history (a synthetic result for a call the process died in)."""
    positions: list[int] = []
    for index, (after_seq, role, record) in enumerate(insertions):
        # Each earlier insertion moved this point down by one.
        seq = after_seq + 1 + index
        # Make room: two steps through negative numbers, as SQLite checks the key row by row.
        conn.execute("UPDATE messages SET seq = -seq - 2 WHERE session_id = ? AND seq >= ?", (session_id, seq))
        conn.execute("UPDATE messages SET seq = -seq - 1 WHERE session_id = ? AND seq < 0", (session_id,))
        for column in ("summary_seq", "kept_from_seq"):
            conn.execute(
                f"UPDATE context_epochs SET {column} = {column} + 1 WHERE session_id = ? AND {column} >= ?",
                (session_id, seq),
            )
        conn.execute(
            "INSERT INTO messages (session_id, seq, role, record, created_at, epoch) "
            f"VALUES (?, ?, ?, ?, ?, {_CURRENT_EPOCH})",
            (session_id, seq, role, json.dumps(record, ensure_ascii=False), now, session_id),
        )
        positions.append(seq)
    return positions


def load_messages(conn: sqlite3.Connection, session_id: str) -> list[Message]:
    """The model's view of the latest epoch, as messages."""
    from engine.messages import Message

    return [Message.from_record(json.loads(record)) for _, record in load_view(conn, session_id)[1]]


def load_history(conn: sqlite3.Connection, session_id: str) -> list[HistoryEntry]:
    """Every message of every epoch in order, with a ``CompactionMarker`` where each compaction happened."""
    from engine.messages import Message

    entries: list[HistoryEntry] = []
    for row in history_rows(conn, session_id):
        message = Message.from_record(json.loads(row.record))
        if row.compaction is not None:
            kept_from, before, after = row.compaction
            entries.append(CompactionMarker(row.seq, row.epoch, message, before, after, kept_from, row.created_at))
        else:
            entries.append(HistoryMessage(row.seq, row.epoch, message, row.created_at, row.diff, row.rewound))
    return entries


class HistoryRow(NamedTuple):
    """A stored history row as it is: ``record`` is the message's JSON text; ``compaction`` is ``(kept_from_seq,
    tokens_before, tokens_after)`` for the summary that started an epoch."""

    seq: int
    epoch: int
    record: str
    diff: str | None
    created_at: str
    compaction: tuple[int | None, int, int] | None
    rewound: bool = False


def history_rows(conn: sqlite3.Connection, session_id: str) -> list[HistoryRow]:
    """``load_history`` without building messages: for a caller that only passes the records on."""
    epochs = {
        row[0]: row[1:]
        for row in conn.execute(
            "SELECT summary_seq, kept_from_seq, tokens_before, tokens_after FROM context_epochs WHERE session_id = ?",
            (session_id,),
        )
    }
    rows = conn.execute(
        "SELECT seq, epoch, kind, record, diff, created_at, rewound FROM messages WHERE session_id = ? ORDER BY seq",
        (session_id,),
    )
    return [
        HistoryRow(seq, epoch, record, diff, created_at, epochs.get(seq) if kind == "summary" else None, bool(rewound))
        for seq, epoch, kind, record, diff, created_at, rewound in rows
    ]


def append_subagent_message(
    conn: sqlite3.Connection,
    session_id: str,
    parent_call_id: str,
    task_id: str | None,
    role: str,
    record: dict[str, Any],
    now: str,
    *,
    diff: str | None = None,
    kind: str = "message",
    encoded: str | None = None,
) -> int:
    """One message of the sub-agent started by the ``task`` call ``parent_call_id``; returns its position there.
    ``encoded``: as for ``append_message``."""
    text = encoded if encoded is not None else json.dumps(record, ensure_ascii=False)
    row = conn.execute(
        "INSERT INTO subagent_messages (session_id, parent_call_id, task_id, seq, role, kind, record, diff, "
        "created_at) SELECT ?, ?, ?, COALESCE(MAX(seq), -1) + 1, ?, ?, ?, ?, ? FROM subagent_messages "
        "WHERE session_id = ? AND parent_call_id = ? RETURNING seq",
        (session_id, parent_call_id, task_id, role, kind, text, diff, now, session_id, parent_call_id),
    ).fetchone()
    return int(row[0])


def load_subagent_messages(conn: sqlite3.Connection, session_id: str) -> dict[str, list[HistoryMessage]]:
    """Each sub-agent conversation of the session, by the id of the ``task`` call that started it, in call order."""
    from engine.messages import Message

    conversations: dict[str, list[HistoryMessage]] = {}
    rows = conn.execute(
        "SELECT parent_call_id, seq, record, diff, created_at FROM subagent_messages WHERE session_id = ? "
        "ORDER BY rowid",
        (session_id,),
    )
    for parent, seq, record, diff, created_at in rows:
        message = Message.from_record(json.loads(record))
        conversations.setdefault(parent, []).append(HistoryMessage(seq, 0, message, created_at, diff))
    return conversations


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


def latest_session_id(
    conn: sqlite3.Connection, is_own: Callable[[str], bool] | None = None, origin: str | None = None
) -> str | None:
    """The session ``--continue`` resumes: the most recently updated one with a conversation with the model, so
    that ``coder-tui -p '!git status'`` between two turns does not become the session to continue (its messages
    stay stored and can still be resumed by id); with ``is_own``, the latest one it accepts (SPEC 19); with
    ``origin``, the latest made there (the full screen's ``--continue`` skips headless runs)."""
    rows = conn.execute(
        f"SELECT s.id FROM sessions s WHERE {_HAS_MESSAGES} AND {_HAS_TURN} AND (? IS NULL OR s.origin = ?) "
        "ORDER BY s.updated_at DESC, s.rowid DESC",
        (origin, origin),
    )
    return next((row[0] for row in rows if is_own is None or is_own(row[0])), None)


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
