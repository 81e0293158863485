"""Which sessions are this user's (SPEC 19): a session made by this user's coder-tui in this workspace carries a
seal, the MAC of its id and the workspace under the user's state key (``provenance``), in the database and in the
head of its session file. A session without a valid seal is foreign: it came with the repository (a shipped
``coder.db`` or ``sessions/*.json``), or from another machine, user or folder. It can be listed, read and exported;
resuming it never takes its saved mode, its undo journal is not used, and ``--continue`` does not pick it.

Sessions stored before seals existed (database version 4 and older) stay foreign, readable but never resumed with
their mode: nothing tells this user's apart from a repository's (a clone, a monorepo's sub-folder whose repository
root is further up, an unpacked archive with no git at all).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from engine.storage.provenance import StateKey


class SessionSeals:
    """Makes and checks the seals of one workspace's sessions."""

    def __init__(self, key: StateKey, workspace: Path) -> None:
        self._key = key
        self._where = os.path.realpath(workspace)

    def make(self, session_id: str) -> str:
        return self._key.sign("session", self._where, session_id)

    def holds(self, session_id: str, mac: object) -> bool:
        return self._key.verify(mac, "session", self._where, session_id)

    def seal(self, conn: sqlite3.Connection, session_id: str) -> None:
        conn.execute(
            "INSERT OR REPLACE INTO session_seals (session_id, mac) VALUES (?, ?)", (session_id, self.make(session_id))
        )

    def is_own(self, conn: sqlite3.Connection, session_id: str) -> bool:
        row = conn.execute("SELECT mac FROM session_seals WHERE session_id = ?", (session_id,)).fetchone()
        return row is not None and self.holds(session_id, row[0])

    def forget_legacy(self, conn: sqlite3.Connection) -> None:
        """Drops the list of sessions stored before seals existed: they stay unsealed, so foreign."""
        conn.execute("DELETE FROM unsealed_sessions")
