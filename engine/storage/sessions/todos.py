"""The session's todo list (SPEC 9), kept in the database so a resumed session finds its plan where it was."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from engine.events import TodoItem
from engine.storage.db import Database
from engine.storage.redact import Redactor


class Todos:
    def __init__(self, db: Database, redactor: Redactor) -> None:
        self._db = db
        self._redactor = redactor

    def save(self, session_id: str, items: Sequence[TodoItem]) -> None:
        redacted = [TodoItem(item.id, self._redactor.redact(item.content), item.status) for item in items]
        with self._db.transaction() as conn:
            replace_todos(conn, session_id, redacted)

    def load(self, session_id: str) -> list[TodoItem]:
        with self._db.read() as conn:
            return load_todos(conn, session_id)


def replace_todos(conn: sqlite3.Connection, session_id: str, todos: Sequence[TodoItem]) -> None:
    """``todowrite`` always sends the whole list, so the stored list is replaced as a whole, order kept."""
    conn.execute("DELETE FROM todos WHERE session_id = ?", (session_id,))
    conn.executemany(
        "INSERT INTO todos (session_id, position, id, content, status) VALUES (?, ?, ?, ?, ?)",
        [(session_id, position, todo.id, todo.content, todo.status) for position, todo in enumerate(todos)],
    )


def load_todos(conn: sqlite3.Connection, session_id: str) -> list[TodoItem]:
    rows = conn.execute(
        "SELECT id, content, status FROM todos WHERE session_id = ? ORDER BY position", (session_id,)
    )
    return [TodoItem(id=todo_id, content=content, status=status) for todo_id, content, status in rows]
