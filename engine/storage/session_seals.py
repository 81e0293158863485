"""Which sessions are this user's (SPEC 19): a session made by this user's coder-tui in this workspace carries a
seal, the MAC of its id and the workspace under the user's state key (``provenance``), in the database and in the
head of its session file. A session without a valid seal is foreign: it came with the repository (a shipped
``coder.db`` or ``sessions/*.json``), or from another machine, user or folder. It can be listed, read and exported;
resuming it never takes its saved mode, its undo journal is not used, and ``--continue`` does not pick it.

State made before seals existed (database version 3 and older) is adopted as this user's when nothing under
``.coder/`` is tracked by the workspace's git (a clone or a pull is how a repository ships state); otherwise it
stays readable, as foreign.
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
        self.workspace = Path(workspace)

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

    def adopt_legacy(self, conn: sqlite3.Connection) -> int:
        """Seals the sessions stored before seals existed when the state is this user's (see the module's note);
        returns how many. Either way they are decided once."""
        legacy = [row[0] for row in conn.execute("SELECT session_id FROM unsealed_sessions")]
        if not legacy:
            return 0
        adopted = 0 if state_tracked_by_git(self.workspace) else len(legacy)
        if adopted:
            conn.executemany(
                "INSERT OR IGNORE INTO session_seals (session_id, mac) SELECT id, ? FROM sessions WHERE id = ?",
                [(self.make(session_id), session_id) for session_id in legacy],
            )
        conn.execute("DELETE FROM unsealed_sessions")
        return adopted


def state_tracked_by_git(workspace: Path) -> bool:
    """Whether the workspace's git index names anything under ``.coder/``: read from the index file itself (running
    git would run the repository's own configuration). Unreadable or unknown counts as tracked."""
    dot_git = workspace / ".git"
    try:
        if dot_git.is_file():
            line = dot_git.read_text(encoding="utf-8", errors="replace").strip()
            if not line.startswith("gitdir:"):
                return True
            gitdir = Path(line[len("gitdir:"):].strip())
            dot_git = gitdir if gitdir.is_absolute() else workspace / gitdir
        index = dot_git / "index"
        if not dot_git.exists() or not index.exists():
            return False
        return b".coder/" in index.read_bytes()
    except OSError:
        return True
