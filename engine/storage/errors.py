"""The storage layer's errors. Each names the database file and says what the user can do about it."""

from __future__ import annotations

from engine.errors import EngineError


class StorageError(EngineError):
    """The database (or the undo store next to it) cannot be used: damaged, locked, unreadable, unknown session."""


class UnknownSession(StorageError):
    """A session id (or id prefix) that matches no session, or more than one."""
