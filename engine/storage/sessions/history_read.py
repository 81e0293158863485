"""A session's whole history as a front end shows it (``HistoryRestored``), read without building a message.

It imports only SQLite and the conversation log's SQL, no pydantic: the engine process reads the history of the
session it opens with before the rest of the engine loads (``engine.server.opening``). The stored records are passed
on as the JSON texts they are: a long session's history is thousands of them, and nothing here parses them.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from engine.events import HistoryRestored
from engine.storage.db import database_path
from engine.storage.errors import StorageError
from engine.storage.migrations import MIGRATIONS
from engine.storage.sessions import conversation_log
from engine.storage.state_folder import check_state_folder


def open_for_reading(workspace: Path) -> sqlite3.Connection | None:
    """A read-only connection to the workspace's database; None when there is none yet, or it is not the schema this
    code writes (the engine's full start then opens it, migrates or rebuilds it, or says what is wrong with it)."""
    path = database_path(workspace)
    try:
        if not check_state_folder(workspace) or not path.is_file() or path.stat().st_size == 0:
            return None
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
    except (OSError, sqlite3.Error, StorageError):
        return None  # the engine's full start says what is wrong
    try:
        (version,) = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
    except sqlite3.Error:
        version = None
    if version != MIGRATIONS[-1].version:
        conn.close()
        return None
    return conn


def holds_conversation(workspace: Path, session_id: str) -> bool:
    """Whether the session has a stored message (what a front end's "resume it with ..." hint is worth)."""
    conn = open_for_reading(workspace)
    if conn is None:
        return False
    try:
        return conn.execute("SELECT 1 FROM messages WHERE session_id = ? LIMIT 1", (session_id,)).fetchone() is not None
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def read_history(conn: sqlite3.Connection, session_id: str) -> HistoryRestored:
    """The history of the session ``session_id`` (a full id): every epoch, a marker where each compaction happened,
    each tool message's diff and each sub-agent's conversation."""
    parts: list[str] = []
    for row in conversation_log.history_rows(conn, session_id):
        if row.compaction is not None:
            _, before, after = row.compaction
            parts.append(f'{{"kind": "compacted", "record": {row.record}, "diff": null, '
                         f'"tokens_before": {before}, "tokens_after": {after}}}')
        else:
            diff = json.dumps(row.diff, ensure_ascii=False)
            parts.append(f'{{"kind": "message", "record": {row.record}, "diff": {diff}}}')
    return HistoryRestored(session_id, "[" + ",\n".join(parts) + "]", subagent_records(conn, session_id))


def subagent_records(conn: sqlite3.Connection, session_id: str) -> dict[str, tuple[dict[str, object], ...]]:
    """Each sub-agent's conversation as message records, by the id of the ``task`` call that started it."""
    conversations: dict[str, list[dict[str, object]]] = {}
    rows = conn.execute(
        "SELECT parent_call_id, record FROM subagent_messages WHERE session_id = ? ORDER BY rowid", (session_id,)
    )
    for parent, record in rows:
        conversations.setdefault(parent, []).append(json.loads(record))
    return {parent: tuple(records) for parent, records in conversations.items()}
