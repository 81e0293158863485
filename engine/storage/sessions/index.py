"""The workspace's sessions as a set (SPEC 12): making one, retitling it, listing them for the picker, finding the one
``--continue`` resumes and the full id behind a prefix; and, for each, whether it is this user's (SPEC 19: its seal,
``seals``). What a session holds is in the other rooms (``conversation``, ``todos``, the logs). The SQL is in
``conversation_log`` and ``seals``."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from engine.storage.db import Database
from engine.storage.names import checked_name
from engine.storage.redact import Redactor
from engine.storage.sessions import conversation_log
from engine.storage.sessions.records import SessionSummary
from engine.storage.sessions.seals import SessionSeals


class SessionIndex:
    def __init__(
        self, db: Database, redactor: Redactor, clock: Callable[[], str], seals: SessionSeals | None, origin: str
    ) -> None:
        """Without ``seals`` every session counts as this user's (see ``Store``); ``origin``: where the sessions
        made here are used ("tui", "headless", "acp")."""
        self._db = db
        self._redactor = redactor
        self._now = clock
        self._seals = seals
        self._origin = origin

    def create(
        self,
        *,
        model: str,
        mode: str,
        session_id: str | None = None,
        title: str = "",
        own: bool = True,
        origin: str | None = None,
    ) -> str:
        """``own=False`` stores a session that is not this user's (one rebuilt from an unsealed snapshot)."""
        session_id = checked_name(session_id or uuid.uuid4().hex[:12], "session id")
        with self._db.transaction() as conn:
            conversation_log.create_session(
                conn, session_id, model=model, mode=mode, title=self._redactor.redact(title), now=self._now(),
                origin=origin or self._origin,
            )
            if own and self._seals is not None:
                self._seals.seal(conn, session_id)
        return session_id

    def is_own(self, session_id: str) -> bool:
        """Whether this user's coder-tui made the session in this workspace (SPEC 19); a foreign one never sets
        the mode, never feeds ``/undo``, and ``--continue`` does not pick it."""
        if self._seals is None:
            return True
        with self._db.read() as conn:
            return self._seals.is_own(conn, session_id)

    def file_seal(self, session_id: str) -> str | None:
        """The seal the session's snapshot file carries in its head: None for a foreign session."""
        if self._seals is None or not self.is_own(session_id):
            return None
        return self._seals.make(session_id)

    def update(
        self, session_id: str, *, model: str | None = None, mode: str | None = None, title: str = ""
    ) -> None:
        """``title`` titles the session only while it has none (its first request does otherwise)."""
        with self._db.transaction() as conn:
            conversation_log.touch_session(
                conn, self._db.path, session_id, self._now(), model=model, mode=mode,
                title=self._redactor.redact(title),
            )

    def rename(self, session_id: str, title: str) -> None:
        """``/rename``: the session's title becomes ``title`` (one line, redacted), whatever it was."""
        with self._db.transaction() as conn:
            conversation_log.rename_session(conn, self._db.path, session_id, self._redactor.redact(title))

    def summaries(self, limit: int = 20) -> list[SessionSummary]:
        """Most recently updated first: id, title, times, model, mode and message count, for the picker. Sessions
        without a message are left out (and ignored by ``latest_id``)."""
        with self._db.read() as conn:
            return conversation_log.summaries(conn, limit)

    def latest_id(self) -> str | None:
        """The latest of this user's sessions with a conversation (``--continue``), never a foreign one: the full
        screen's latest one there, elsewhere the latest of any kind."""
        origin = "tui" if self._origin == "tui" else None
        with self._db.read() as conn:
            seals = self._seals
            return conversation_log.latest_session_id(
                conn, None if seals is None else (lambda session_id: seals.is_own(conn, session_id)), origin
            )

    def resolve(self, session_ref: str) -> str:
        """The full id of the session ``session_ref`` names (an id or a unique prefix); ``UnknownSession`` else."""
        with self._db.read() as conn:
            return conversation_log.resolve_session_id(conn, self._db.path, session_ref)
