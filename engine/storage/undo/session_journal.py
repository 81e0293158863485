"""A session's undo journal as this user opens it (SPEC 7, 19): on the store's connection, stamped by its clock and
redacted by its redactor. A session that is not this user's (``SessionIndex.is_own``) came with its journal: its
turns are never undone; the journal is emptied before it is opened (so a shipped journal's copies never reach the
content store), and turns made from now on are this user's, on a fresh stack."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from engine.capture.objects import ObjectStore, ObjectStoreError, open_object_store
from engine.storage.errors import StorageError
from engine.storage.undo.journal import UndoJournal

if TYPE_CHECKING:
    from engine.storage.store import Store


def undo_objects(workspace_root: Path) -> ObjectStore:
    """The workspace's content store for undo (the capture's), or ``StorageError`` saying why it cannot be used."""
    try:
        return open_object_store(workspace_root)
    except ObjectStoreError as exc:
        raise StorageError(str(exc)) from exc


def open_journal(
    store: Store, session_id: str, workspace_root: Path, *, max_turns: int, objects: ObjectStore | None = None
) -> UndoJournal:
    """The per-turn file snapshots of this session (``undo.max_turns`` deep), sharing the store's connection; their
    content in ``objects``, the capture's content store (default: the workspace's, opened here)."""
    if not store.sessions.is_own(session_id):
        with store.db.transaction() as conn:
            conn.execute("DELETE FROM undo_turns WHERE session_id = ?", (session_id,))
            conn.execute("DELETE FROM undo_baselines WHERE session_id = ?", (session_id,))
    return UndoJournal(
        store.db, session_id, workspace_root, max_turns=max_turns,
        objects=objects or undo_objects(Path(os.path.realpath(workspace_root))),
        clock=store.clock, redact=store.redactor.redact,
    )
