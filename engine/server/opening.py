"""The session the engine process opens with (``--resume ID`` / ``--continue``): its history reaches the front end
before the engine is built.

Building the engine (configuration, tools, the model SDK) takes most of a second; reading a session's history takes a
few milliseconds with SQLite alone (``engine.storage.sessions.history_read``). So the host reads and sends the
history first, holding the session's lock (SPEC 21) from that moment, and the opening ``/resume`` runs as ever once the
engine is up, without sending the history a second time. Whenever the early read cannot be done (no database yet, an
unknown id, a session another live process holds, a schema still to migrate), nothing is sent, no lock is held, and
the opening ``/resume`` says why, exactly as it would without this.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path

from engine.events import HistoryRestored
from engine.record import record
from engine.storage.db import database_path
from engine.storage.errors import StorageError
from engine.storage.provenance import StateKey
from engine.storage.sessions import conversation_log
from engine.storage.sessions.history_read import open_for_reading, read_history
from engine.storage.sessions.lock import SessionLock
from engine.storage.sessions.seals import SessionSeals

# The session reference ``--continue`` opens (as in ``/resume --last``).
LATEST = "--last"


@record
class OpenedSession:
    """The session whose history was sent, and its lock, held until the engine's orchestrator takes it over."""

    session_id: str
    lock: SessionLock


def open_session(
    workspace: Path, session_ref: str, env: Mapping[str, str]
) -> tuple[OpenedSession, HistoryRestored] | None:
    """Takes the lock of the session ``session_ref`` names (an id, a unique prefix, or ``LATEST``: the latest of
    this user's own, SPEC 19) and reads its history; None when either cannot be done now."""
    conn = open_for_reading(workspace)
    if conn is None:
        return None
    lock: SessionLock | None = None
    try:
        if session_ref == LATEST:
            seals = SessionSeals(StateKey.load(env), workspace)
            # The full screen's --continue: its own latest session, never a headless run's.
            session_id = conversation_log.latest_session_id(conn, lambda found: seals.is_own(conn, found), "tui")
            if session_id is None:
                return None
        else:
            session_id = conversation_log.resolve_session_id(conn, database_path(workspace), session_ref)
        lock = SessionLock.acquire(workspace, session_id)
        return OpenedSession(session_id, lock), read_history(conn, session_id)
    except (StorageError, sqlite3.Error):
        if lock is not None:
            lock.release()
        return None
    finally:
        conn.close()
