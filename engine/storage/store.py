"""The workspace's database and its rooms (SPEC 12). ``Store.open`` opens ``.coder/coder.db`` and hands out one
object per thing it holds; a caller uses the room it needs, each of which redacts what it writes, stamps the time
and makes each write one transaction:

- ``sessions`` (``sessions.index``): the sessions as a set: making, listing, resolving them, and whose each is;
- ``conversation`` (``sessions.conversation``): a session's messages, context epochs, rewinds, sub-agents;
- ``todos`` (``sessions.todos``): a session's todo list;
- ``events`` (``log.events``): task lifecycles and interactions;
- ``audit`` (``log.audit``): tool calls and permission decisions, one record a row.

A session's undo journal shares the connection (``undo.journal.open_journal``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from engine.storage.db import DEFAULT_BUSY_TIMEOUT_MS, Database, database_path, utc_now
from engine.storage.errors import StorageError
from engine.storage.log.audit import AuditTrail
from engine.storage.log.events import EventLog
from engine.storage.provenance import StateKey
from engine.storage.redact import Redactor
from engine.storage.search_index import attach_search_index
from engine.storage.session_search import remember_folder
from engine.storage.sessions.conversation import Conversation
from engine.storage.sessions.index import SessionIndex
from engine.storage.sessions.seals import SessionSeals
from engine.storage.sessions.todos import Todos
from engine.storage.state_folder import STATE_FOLDER, ensure_state_folder

if TYPE_CHECKING:
    from collections.abc import Mapping


class Store:
    def __init__(
        self,
        db: Database,
        *,
        redactor: Redactor | None = None,
        clock: Callable[[], str] = utc_now,
        seals: SessionSeals | None = None,
        origin: str = "tui",
    ) -> None:
        """``seals`` tells this user's sessions from foreign ones (SPEC 19); ``open`` always gives it. Without it
        (a store made directly on a database, as tests of the logs do) every session counts as this user's. ``origin``:
        where the sessions it makes are used (SPEC 12: "tui", "headless", "acp")."""
        self.db = db
        self.redactor = redactor or Redactor()
        self.clock = clock
        self.seals = seals
        self.sessions = SessionIndex(db, self.redactor, clock, seals, origin)
        self.conversation = Conversation(db, self.redactor, clock)
        self.todos = Todos(db, self.redactor)
        self.events = EventLog(db, self.redactor, clock)
        self.audit = AuditTrail(db, self.redactor, clock)
        # Set by ``open`` when an empty database was rebuilt from the session snapshots: one note per session.
        self.rebuilt: list[str] = []

    @classmethod
    def open(
        cls,
        workspace: Path,
        *,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
        environ: Mapping[str, str] | None = None,
        state_key: StateKey | None = None,
        origin: str = "tui",
    ) -> Store:
        """Opens ``<workspace>/.coder/coder.db`` (making ``.coder/`` with its ``.gitignore`` first, or refusing one
        that is a link, not a folder or not the user's); ``environ`` names the secrets to redact (default:
        os.environ); ``state_key`` is the user's (default: the one in the user's config folder); ``origin``: where the
        sessions it makes are used."""
        try:
            ensure_state_folder(workspace)
        except OSError as exc:
            raise StorageError(f"cannot create {workspace / STATE_FOLDER}: {exc.strerror or exc}") from exc
        from engine.storage.sessions.rebuild import needs_rebuild, rebuild_from_snapshots

        seals = SessionSeals(state_key or StateKey.load(environ), workspace)
        path = database_path(workspace)
        empty = needs_rebuild(path)
        store = cls(
            Database.open(path, busy_timeout_ms=busy_timeout_ms), redactor=Redactor(environ), seals=seals, origin=origin
        )
        if empty:
            store.rebuilt = rebuild_from_snapshots(store, workspace)
        attach_search_index(store.db)
        remember_folder(workspace, environ)
        with store.db.transaction() as conn:
            seals.forget_legacy(conn)
        return store

    @property
    def path(self) -> Path:
        return self.db.path

    def close(self) -> None:
        self.db.close()

    def settle(self) -> None:
        """At a quiet moment (an input has ended): the database's deferred upkeep (``Database.checkpoint``)."""
        self.db.checkpoint()

    def commit_deferred(self) -> None:
        """Commits the rows written with ``defer=True`` that no transaction has taken yet."""
        self.db.commit_deferred()
