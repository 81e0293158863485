"""The full-text index of the sessions (SPEC 27): ``.coder/search.db``, an SQLite FTS5 index beside the database.

It is derived data, kept current by the database itself: ``attach_search_index`` attaches the file to the store's
connection and adds temporary triggers on ``sessions`` and ``messages``, so every write (a message appended, a
``/fork`` copying a conversation, a compaction's summary, a ``/rewind`` cutting messages, resume inserting repairs,
a ``/rename``) changes the index in the same transaction, whichever code path made it. Rewound messages leave the
index, as they leave the conversation.

A missing (or unreadable) index is built again from the database when the store opens; the database itself is
rebuilt from the session files when it is missing (``rebuild``), so with both gone the sessions are found again.

What is indexed of a message: its text (content, or the text parts of a multi-part content), and a tool call's name
and arguments, at most ``MAX_INDEXED_CHARS`` of it. Each session's title is a row of its own, so a title matches too.
The read side (queries, all folders) is ``session_search``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
from pathlib import Path
from typing import Any

from engine.storage.db import Database
from engine.storage.errors import StorageError

log = logging.getLogger(__name__)

SEARCH_FILE = "search.db"
SCHEMA = "search"
# A tool's output can be a whole file: the start of it is what a search needs to find the session.
MAX_INDEXED_CHARS = 4_000
# The role of the row that holds a session's title (``seq`` -1).
TITLE_ROLE = "title"
TEXT_FUNCTION = "coder_search_text"

_TABLES = f"""
CREATE TABLE IF NOT EXISTS {SCHEMA}.search_sessions (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS {SCHEMA}.search_texts (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS {SCHEMA}.search_texts_by_session ON search_texts (session_id, seq);
CREATE VIRTUAL TABLE IF NOT EXISTS {SCHEMA}.search_fts USING fts5(
    body, content='search_texts', content_rowid='id', tokenize='unicode61 remove_diacritics 2',
    prefix='2 3 4'
);
CREATE TRIGGER IF NOT EXISTS {SCHEMA}.search_texts_added AFTER INSERT ON search_texts BEGIN
    INSERT INTO search_fts (rowid, body) VALUES (new.id, new.body);
END;
CREATE TRIGGER IF NOT EXISTS {SCHEMA}.search_texts_removed AFTER DELETE ON search_texts BEGIN
    INSERT INTO search_fts (search_fts, rowid, body) VALUES ('delete', old.id, old.body);
END;
"""

# On the store's connection only (TEMP): each write to the conversation log reaches the index in its transaction.
_HOOKS = f"""
CREATE TEMP TRIGGER IF NOT EXISTS search_session_made AFTER INSERT ON main.sessions BEGIN
    INSERT OR REPLACE INTO search_sessions (id, title, created_at, updated_at)
        VALUES (new.id, new.title, new.created_at, new.updated_at);
    INSERT INTO search_texts (session_id, seq, role, body)
        SELECT new.id, -1, '{TITLE_ROLE}', new.title WHERE new.title != '';
END;
CREATE TEMP TRIGGER IF NOT EXISTS search_session_touched AFTER UPDATE OF updated_at ON main.sessions
WHEN new.title = old.title BEGIN
    UPDATE search_sessions SET updated_at = new.updated_at WHERE id = new.id;
END;
CREATE TEMP TRIGGER IF NOT EXISTS search_session_titled AFTER UPDATE OF title ON main.sessions
WHEN new.title != old.title BEGIN
    INSERT OR REPLACE INTO search_sessions (id, title, created_at, updated_at)
        VALUES (new.id, new.title, new.created_at, new.updated_at);
    DELETE FROM search_texts WHERE session_id = new.id AND seq = -1;
    INSERT INTO search_texts (session_id, seq, role, body)
        SELECT new.id, -1, '{TITLE_ROLE}', new.title WHERE new.title != '';
END;
CREATE TEMP TRIGGER IF NOT EXISTS search_message_added AFTER INSERT ON main.messages
WHEN new.rewound = 0 BEGIN
    INSERT INTO search_texts (session_id, seq, role, body)
        SELECT new.session_id, new.seq, new.role, {TEXT_FUNCTION}(new.record)
        WHERE {TEXT_FUNCTION}(new.record) != '';
END;
CREATE TEMP TRIGGER IF NOT EXISTS search_message_rewound AFTER UPDATE OF rewound ON main.messages
WHEN new.rewound = 1 AND old.rewound = 0 BEGIN
    DELETE FROM search_texts WHERE session_id = new.session_id AND seq = new.seq;
END;
CREATE TEMP TRIGGER IF NOT EXISTS search_message_moved AFTER UPDATE OF seq ON main.messages BEGIN
    UPDATE search_texts SET seq = new.seq WHERE session_id = old.session_id AND seq = old.seq;
END;
CREATE TEMP TRIGGER IF NOT EXISTS search_message_deleted AFTER DELETE ON main.messages BEGIN
    DELETE FROM search_texts WHERE session_id = old.session_id AND seq = old.seq;
END;
CREATE TEMP TRIGGER IF NOT EXISTS search_session_deleted AFTER DELETE ON main.sessions BEGIN
    DELETE FROM search_texts WHERE session_id = old.id;
    DELETE FROM search_sessions WHERE id = old.id;
END;
"""

_FILL = f"""
INSERT INTO {SCHEMA}.search_sessions (id, title, created_at, updated_at)
    SELECT id, title, created_at, updated_at FROM main.sessions;
INSERT INTO {SCHEMA}.search_texts (session_id, seq, role, body)
    SELECT id, -1, '{TITLE_ROLE}', title FROM main.sessions WHERE title != '';
INSERT INTO {SCHEMA}.search_texts (session_id, seq, role, body)
    SELECT session_id, seq, role, body FROM (
        SELECT m.session_id, m.seq, m.role, {TEXT_FUNCTION}(m.record) AS body
        FROM main.messages m JOIN main.sessions s ON s.id = m.session_id
        WHERE m.rewound = 0 ORDER BY s.updated_at, m.session_id, m.seq
    ) WHERE body != '';
"""


def search_index_path(database: Path) -> Path:
    return database.with_name(SEARCH_FILE)


def searchable_text(record_json: str) -> str:
    """What a search finds of a stored message record: its text and its tool calls, bounded."""
    try:
        record: Any = json.loads(record_json)
    except ValueError:
        return ""
    if not isinstance(record, dict):
        return ""
    parts: list[str] = []
    content = record.get("content")
    if isinstance(content, str):
        parts.append(content)
    elif isinstance(content, list):
        parts.extend(str(part.get("text") or "") for part in content if isinstance(part, dict))
    for call in record.get("tool_calls") or ():
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            parts.append(f"{function.get('name') or ''} {function.get('arguments') or ''}")
    return "\n".join(part for part in parts if part)[:MAX_INDEXED_CHARS]


def attach_search_index(db: Database) -> None:
    """Attaches the index beside ``db`` to its connection and hooks it to every write. An index that is missing,
    or damaged (it is derived data), is built again from the database first. A failure is logged and leaves the
    store without an index: searching is then empty, the conversation is never at risk."""
    path = search_index_path(db.path)
    try:
        _attach(db, path)
    except (sqlite3.Error, StorageError) as exc:
        log.warning("the session search index %s cannot be used (%s); building it again", path, exc)
        try:
            _detach(db)
            for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
                stale.unlink(missing_ok=True)
            _attach(db, path)
        except (sqlite3.Error, StorageError, OSError) as again:
            with contextlib.suppress(sqlite3.Error, StorageError):
                _detach(db)
            log.warning("sessions will not be searchable: %s cannot be built (%s)", path, again)


def _attach(db: Database, path: Path) -> None:
    with db.read() as conn:
        conn.create_function(TEXT_FUNCTION, 1, searchable_text, deterministic=True)
        conn.execute(f"ATTACH DATABASE ? AS {SCHEMA}", (str(path),))
        conn.execute(f"PRAGMA {SCHEMA}.journal_mode = WAL")
        conn.execute(f"PRAGMA {SCHEMA}.synchronous = NORMAL")
        built = conn.execute(
            f"SELECT 1 FROM {SCHEMA}.sqlite_master WHERE type = 'table' AND name = 'search_fts'"
        ).fetchone()
    with db.transaction() as conn:
        for statement in _statements(_TABLES):
            conn.execute(statement)
        if not built:
            for statement in _statements(_FILL):
                conn.execute(statement)
        for statement in _statements(_HOOKS):
            conn.execute(statement)


def _detach(db: Database) -> None:
    with db.read() as conn:
        attached = {row[1] for row in conn.execute("PRAGMA database_list")}
        if SCHEMA in attached:
            conn.execute(f"DETACH DATABASE {SCHEMA}")


def _statements(script: str) -> list[str]:
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    return statements
