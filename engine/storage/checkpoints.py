"""WAL checkpoints in a thread of their own, not in the commit that happens to fill the log.

SQLite copies the write-ahead log back into the database file (a checkpoint) when a commit leaves it over 1,000
pages, inside that commit: with ``synchronous=NORMAL`` that is two fsyncs, 5-15 ms during which the event loop,
which made the commit, stands still (in a headless turn of tool calls, once every 70 calls). Here the database's
own connection checkpoints only as a last resort (``LAST_RESORT_PAGES``, for commits of many megabytes), and a
thread with a connection of its own makes a passive checkpoint every ``EVERY_COMMITS`` commits: it copies what no
reader still needs and never blocks a writer, and sqlite3 lets go of the interpreter while it works.

A checkpoint only moves committed pages from the log to the database file; every commit is as durable as before
it (in the log, which a reopened database replays). A checkpoint that fails is logged and the next one tries again.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

log = logging.getLogger(__name__)

# Commits between two passive checkpoints: in a tool call's three transactions a commit writes a few pages, so the
# log stays near SQLite's own 1,000-page mark.
EVERY_COMMITS = 200
# The database's own connection still checkpoints past this many pages of log (40 MB).
LAST_RESORT_PAGES = 10_000


class Checkpointer:
    """``committed()`` after each commit; ``close()`` before the database's connection closes (which then makes
    the last checkpoint and removes the log, as the last connection to a database does)."""

    def __init__(self, path: Path, every_commits: int | None = None) -> None:
        self._path = path
        self._every = every_commits or EVERY_COMMITS
        self._commits = 0
        self._due = threading.Event()
        self._closing = False
        self._thread: threading.Thread | None = None

    def committed(self) -> None:
        self._commits += 1
        if self._commits % self._every or self._closing:
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="coder-checkpoint", daemon=True)
            self._thread.start()
        self._due.set()

    def close(self) -> None:
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._closing = True
        self._due.set()
        thread.join()

    def _run(self) -> None:
        connection: sqlite3.Connection | None = None
        try:
            while True:
                self._due.wait()
                self._due.clear()
                if self._closing:
                    return
                try:
                    if connection is None:
                        connection = _connect(self._path)
                    connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                except sqlite3.Error as exc:
                    log.warning("checkpoint of %s failed (the next one tries again): %s", self._path, exc)
        finally:
            if connection is not None:
                connection.close()


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)
