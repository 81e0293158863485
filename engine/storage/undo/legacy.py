"""Undo journals written before the content store held every copy: a file tool's snapshot was a file of its own,
``.coder/undo/<session>/<turn>/<n>``, and the session's first snapshot of a file a second name for it,
``.coder/undo/<session>/baseline/<32 hex>``; the rows named them so. ``adopt_legacy_copies`` moves such a
session's copies into the content store and renames its rows ``sha256:<digest>``, then removes the old folder.

It runs when the session's journal is opened, after the store has dropped the journal of a session that is not
this user's (its seal: ``session_journal.open_journal``), so a shipped journal's copies never reach the store. A copy is read
only by a name of the two shapes above, as a regular file not reached through a link; a row whose copy is
missing or refused keeps no content (undo then says its content was not kept), as it would have failed before.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from pathlib import Path

from engine.capture.objects import ObjectStore, ObjectStoreError, object_name
from engine.storage.db import Database
from engine.storage.state_folder import refuse_links

_LEGACY_NAME = re.compile(r"[0-9]{1,18}/[0-9]{1,9}|baseline/[0-9a-f]{32}")


def adopt_legacy_copies(db: Database, session_id: str, folder: Path, objects: ObjectStore) -> None:
    """``folder``: the session's old copies folder, ``.coder/undo/<session>`` (its name already checked)."""
    with db.read() as conn:
        files = conn.execute(
            "SELECT f.rowid, f.blob FROM undo_files f JOIN undo_turns t ON f.turn = t.id "
            "WHERE t.session_id = ? AND f.blob IS NOT NULL AND f.blob NOT LIKE 'sha256:%'",
            (session_id,),
        ).fetchall()
        baselines = conn.execute(
            "SELECT rowid, blob FROM undo_baselines "
            "WHERE session_id = ? AND blob IS NOT NULL AND blob NOT LIKE 'sha256:%'",
            (session_id,),
        ).fetchall()
    if not files and not baselines and not folder.exists():
        return
    refuse_links(folder, folder.parent.parent)
    adopted: dict[str, str | None] = {}
    for _row, name in (*files, *baselines):
        if name not in adopted:
            adopted[name] = _adopt(folder, name, objects)
    with db.transaction() as conn:
        conn.executemany("UPDATE undo_files SET blob = ? WHERE rowid = ?", [(adopted[n], r) for r, n in files])
        conn.executemany("UPDATE undo_baselines SET blob = ? WHERE rowid = ?", [(adopted[n], r) for r, n in baselines])
    if folder.is_dir() and not folder.is_symlink():
        shutil.rmtree(folder, ignore_errors=True)


def _adopt(folder: Path, name: str, objects: ObjectStore) -> str | None:
    if not _LEGACY_NAME.fullmatch(name) or (folder / name.partition("/")[0]).is_symlink():
        return None
    try:
        fd = os.open(folder / name, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            return None
        try:
            return object_name(objects.put_bytes(handle.read()))
        except (OSError, ObjectStoreError):
            return None
