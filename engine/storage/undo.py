"""Per-turn undo (SPEC 7): before write, edit or patch first touches a file in a turn, ``record`` keeps what was
there (bytes and permission bits, or "did not exist"); ``undo_last_turn`` puts every such file back byte for byte,
deletes the files the turn created (and the folders it made for them) and recreates the ones it deleted. Turns
form a stack ``max_turns`` deep, per session, and survive a restart. No git involved.

Where the bytes live: metadata in the database (transactional, queryable), file contents as files under
``.coder/undo/`` (``undo_blobs.py``). Not as BLOBs in the database, because: undo needs the exact bytes, so they
cannot be redacted, and SPEC 12 keeps secrets out of the database (a snapshot of a ``.env`` would break that); a
dropped turn frees its space at once by deleting its folder, while a database file never shrinks without VACUUM;
and large or binary files do not slow every other write to the logs. A content file is always written before the
row that names it, so a crash can leave an unreferenced file (swept on the next start) but never a dangling row.

Files changed by someone else after the turn ended are detected by fingerprint (sha256 + mode, taken when the turn
ends) and reported before anything is overwritten; ``force=True`` undoes anyway.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engine.record import record
from engine.storage.conversation_log import make_title
from engine.storage.db import Database, utc_now
from engine.storage.errors import StorageError
from engine.storage.names import checked_name
from engine.storage.file_state import (
    FileState,
    folders_between,
    missing_top,
    read_state,
    remove_empty_folders,
    write_state,
)
from engine.storage.state_folder import refuse_links
from engine.storage.undo_blobs import BASELINE_DIR, UndoBlobs

NOTHING_TO_UNDO = "nothing to undo: no file changed by write, edit or patch is left on this session's undo stack"


@record
class UndoResult:
    """What ``undo_last_turn`` did. ``applied`` is False when the turn was not (fully) undone: nothing on the
    stack, files changed outside the agent (``conflicts``: undo again with ``force``), or ``errors`` (the turn
    stays on the stack)."""

    applied: bool
    turn_id: str | None = None
    label: str = ""
    restored: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    recreated: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    remaining: int = 0
    reason: str = ""

    def summary(self) -> str:
        if self.reason:
            return self.reason
        parts = [
            f"{verb} {', '.join(paths)}"
            for verb, paths in (("restored", self.restored), ("deleted", self.deleted), ("recreated", self.recreated))
            if paths
        ]
        done = "; ".join(parts) or "the files were already as before the turn"
        forced = f" (overwriting outside changes to {', '.join(self.conflicts)})" if self.conflicts else ""
        return f"undid {_turn_name(self.label, self.turn_id)}: {done}{forced}. {self.remaining} more turn(s) to undo."


@record
class SessionChange:
    """A file as it was before this session's tools first touched it, and as it is now."""

    path: str
    before: FileState
    after: FileState


@dataclass
class _OpenTurn:
    turn_id: str
    label: str
    row: int | None = None  # created in the database on the first record
    paths: set[str] = field(default_factory=set)


@record
class _Snapshot:
    path: str
    existed: bool
    mode: int | None
    blob: str | None
    created_dirs: str | None
    after_state: str | None


class UndoJournal:
    def __init__(
        self,
        db: Database,
        session_id: str,
        workspace_root: Path,
        *,
        max_turns: int,
        clock: Callable[[], str] = utc_now,
        redact: Callable[[str], str] = str,
    ) -> None:
        if max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, got {max_turns}")
        self._db = db
        self.session_id = session_id
        self.root = Path(os.path.realpath(workspace_root))
        self.max_turns = max_turns
        self._blobs = UndoBlobs(self.root / ".coder" / "undo" / checked_name(session_id, "session id"))
        refuse_links(self._blobs.folder / BASELINE_DIR, self.root / ".coder")
        self._now = clock
        self._redact = redact
        self._turn: _OpenTurn | None = None
        self._seal_interrupted_turns()
        self._sweep()

    @property
    def depth(self) -> int:
        """How many turns can be undone."""
        return len(self._turn_rows())

    def turn_ids(self) -> list[str]:
        """The task ids of the turns on the stack, newest first (``/rewind`` undoes those after a message)."""
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT turn_id FROM undo_turns WHERE session_id = ? ORDER BY id DESC", (self.session_id,)
            )
            return [row[0] for row in rows]

    # -- during a turn ------------------------------------------------------------------------------------------
    def begin_turn(self, turn_id: str, label: str = "") -> None:
        if self._turn is not None:
            self.end_turn()
        self._turn = _OpenTurn(turn_id, make_title(self._redact(label)))

    def record(self, path: Path) -> None:
        """Call before ``path`` is written or deleted. Only the first call per path in a turn keeps anything: that
        is the state before the turn. Raises ``StorageError`` when the file cannot be snapshotted, so the caller
        can refuse the change rather than make one that cannot be undone."""
        turn = self._turn
        if turn is None:
            raise RuntimeError("UndoJournal.record was called outside a turn: call begin_turn first")
        target = Path(os.path.realpath(path))
        relative = self._relative(target)
        if relative in turn.paths:
            return
        try:
            state = read_state(target)
        except IsADirectoryError:
            return  # write/edit/patch refuse folders themselves; there is nothing to keep
        except OSError as exc:
            raise StorageError(f"cannot snapshot {relative} for undo: {exc}") from exc
        if turn.row is None:
            turn.row = self._insert_turn(turn)
        blob = None if state.data is None else self._blobs.write(turn.row, len(turn.paths), state.data)
        created = missing_top(target, self.root) if state.data is None else None
        created_dirs = None if created is None else self._relative(created)
        first_touch = not self._has_baseline(relative)
        baseline_blob = self._blobs.keep_as_baseline(blob) if first_touch and blob is not None else None
        with self._db.transaction() as conn:
            conn.execute(
                "INSERT INTO undo_files (turn, path, existed, mode, blob, created_dirs) VALUES (?, ?, ?, ?, ?, ?)",
                (turn.row, relative, int(state.exists), state.mode, blob, created_dirs),
            )
            if first_touch:
                conn.execute(
                    "INSERT OR IGNORE INTO undo_baselines (session_id, path, existed, mode, blob) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (self.session_id, relative, int(state.exists), state.mode, baseline_blob),
                )
        turn.paths.add(relative)

    def end_turn(self) -> None:
        """Seals the turn: takes the fingerprint of every file it touched, then drops turns beyond ``max_turns``."""
        turn, self._turn = self._turn, None
        if turn is None or turn.row is None:
            return
        self._seal(turn.row)
        self._prune()

    # -- /undo and /diff ------------------------------------------------------------------------------------------
    def undo_last_turn(self, force: bool = False) -> UndoResult:
        """Undoes the latest turn on the stack. Without ``force``, files changed outside the agent since that turn
        are reported (``conflicts``) and nothing is touched, so the front end can ask before overwriting them."""
        if self._turn is not None:
            self.end_turn()
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT id, turn_id, label FROM undo_turns WHERE session_id = ? ORDER BY id DESC LIMIT 1",
                (self.session_id,),
            ).fetchone()
        if row is None:
            return UndoResult(applied=False, reason=NOTHING_TO_UNDO)
        turn_row, turn_id, label = row
        name = _turn_name(label, turn_id)
        snapshots = self._snapshots(turn_row)
        current: dict[str, FileState] = {}
        problems: list[str] = []
        for snap in snapshots:
            if not self._names_inside(snap):
                problems.append(f"{snap.path!r}: the journal names a path outside the workspace; refused")
                continue
            try:
                current[snap.path] = read_state(self.root / snap.path)
            except OSError as exc:
                problems.append(f"{snap.path}: {exc}")
        if problems:
            return UndoResult(
                applied=False,
                turn_id=turn_id,
                label=label,
                errors=tuple(problems),
                remaining=self.depth,
                reason=f"{name} was not undone, nothing was changed: {'; '.join(problems)}",
            )
        conflicts = tuple(
            snap.path
            for snap in snapshots
            if snap.after_state is not None and current[snap.path].fingerprint() != snap.after_state
        )
        if conflicts and not force:
            return UndoResult(
                applied=False,
                turn_id=turn_id,
                label=label,
                conflicts=conflicts,
                remaining=self.depth,
                reason=(
                    f"not undone: {', '.join(conflicts)} changed outside coder since {name}; undoing would overwrite "
                    "those changes. Confirm to undo anyway."
                ),
            )
        deleted, restored, recreated, errors = self._apply(snapshots, current)
        if not errors:
            with self._db.transaction() as conn:
                conn.execute("DELETE FROM undo_turns WHERE id = ?", (turn_row,))
            self._blobs.drop_turn(turn_row)
        return UndoResult(
            applied=not errors,
            turn_id=turn_id,
            label=label,
            restored=tuple(restored),
            deleted=tuple(deleted),
            recreated=tuple(recreated),
            conflicts=conflicts,
            errors=tuple(errors),
            remaining=self.depth,
            reason=(
                f"{name} was only partly undone and stays on the undo stack: {'; '.join(errors)}" if errors else ""
            ),
        )

    def session_changes(self) -> list[SessionChange]:
        """Every file this session's tools changed, original against current, by path; for ``/diff`` outside git."""
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT path, existed, mode, blob FROM undo_baselines WHERE session_id = ? ORDER BY path",
                (self.session_id,),
            ).fetchall()
        changes: list[SessionChange] = []
        for path, existed, mode, blob in rows:
            try:
                before = FileState(self._blobs.read(blob), mode) if existed else FileState(None)
                after = read_state(self.root / path)
            except (OSError, StorageError):
                continue  # a folder now, or a lost copy: nothing comparable to show
            if before.fingerprint() != after.fingerprint():
                changes.append(SessionChange(path, before, after))
        return changes

    # -- inside ---------------------------------------------------------------------------------------------------
    def _apply(
        self, snapshots: list[_Snapshot], current: dict[str, FileState]
    ) -> tuple[list[str], list[str], list[str], list[str]]:
        """Deletes the created files first, then the folders made for them, then writes back the old contents.
        Returns (deleted, restored, recreated, errors)."""
        deleted: list[str] = []
        restored: list[str] = []
        recreated: list[str] = []
        errors: list[str] = []
        created = [snap for snap in snapshots if not snap.existed]
        for snap in created:
            if current[snap.path].exists:
                try:
                    (self.root / snap.path).unlink()
                    deleted.append(snap.path)
                except OSError as exc:
                    errors.append(f"{snap.path}: cannot delete: {exc}")
        remove_empty_folders(
            folder
            for snap in created
            if snap.created_dirs
            for folder in folders_between((self.root / snap.path).parent, self.root / snap.created_dirs)
        )
        for snap in snapshots:
            if not snap.existed or snap.blob is None or snap.mode is None:
                continue
            try:
                before = FileState(self._blobs.read(snap.blob), snap.mode)
                if before.fingerprint() == current[snap.path].fingerprint():
                    continue
                write_state(self.root / snap.path, before.data or b"", snap.mode)
            except (OSError, StorageError) as exc:
                errors.append(f"{snap.path}: cannot restore: {exc}")
                continue
            (restored if current[snap.path].exists else recreated).append(snap.path)
        return deleted, restored, recreated, errors

    def _insert_turn(self, turn: _OpenTurn) -> int:
        with self._db.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO undo_turns (session_id, turn_id, label, started_at) VALUES (?, ?, ?, ?)",
                (self.session_id, turn.turn_id, turn.label, self._now()),
            )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def _seal(self, turn_row: int) -> None:
        fingerprints: list[tuple[str | None, int, str]] = []
        for snap in self._snapshots(turn_row):
            try:
                fingerprint: str | None = read_state(self.root / snap.path).fingerprint()
            except OSError:
                fingerprint = None  # not a regular file any more: undo will report it
            fingerprints.append((fingerprint, turn_row, snap.path))
        with self._db.transaction() as conn:
            conn.executemany("UPDATE undo_files SET after_state = ? WHERE turn = ? AND path = ?", fingerprints)
            conn.execute("UPDATE undo_turns SET ended_at = ? WHERE id = ?", (self._now(), turn_row))

    def _prune(self) -> None:
        dropped = self._turn_rows()[self.max_turns :]
        if not dropped:
            return
        with self._db.transaction() as conn:
            conn.executemany("DELETE FROM undo_turns WHERE id = ?", [(row,) for row in dropped])
        for row in dropped:
            self._blobs.drop_turn(row)

    def _seal_interrupted_turns(self) -> None:
        """A turn the process never ended (it was killed) is sealed with its files as they are now: the agent was
        the last to write them."""
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT id FROM undo_turns WHERE session_id = ? AND ended_at IS NULL", (self.session_id,)
            ).fetchall()
        for (row,) in rows:
            self._seal(row)

    def _sweep(self) -> None:
        with self._db.read() as conn:
            baselines = [
                row[0]
                for row in conn.execute(
                    "SELECT blob FROM undo_baselines WHERE session_id = ? AND blob IS NOT NULL", (self.session_id,)
                )
            ]
        self._blobs.sweep(self._turn_rows(), set(baselines))

    def _turn_rows(self) -> list[int]:
        """The turns on the stack, newest first."""
        with self._db.read() as conn:
            rows = conn.execute("SELECT id FROM undo_turns WHERE session_id = ? ORDER BY id DESC", (self.session_id,))
            return [row[0] for row in rows]

    def _has_baseline(self, relative: str) -> bool:
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT 1 FROM undo_baselines WHERE session_id = ? AND path = ?", (self.session_id, relative)
            ).fetchone()
        return row is not None

    def _snapshots(self, turn_row: int) -> list[_Snapshot]:
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT path, existed, mode, blob, created_dirs, after_state FROM undo_files WHERE turn = ? "
                "ORDER BY rowid",
                (turn_row,),
            ).fetchall()
        return [
            _Snapshot(path, bool(existed), mode, blob, dirs, after) for path, existed, mode, blob, dirs, after in rows
        ]

    def _names_inside(self, snap: _Snapshot) -> bool:
        """Whether the row's paths stay inside the workspace once resolved (links included), checked before use."""
        for name in (snap.path, snap.created_dirs):
            if name is None:
                continue
            target = Path(os.path.realpath(self.root / name))
            if Path(name).is_absolute() or ".." in Path(name).parts or not target.is_relative_to(self.root):
                return False
        return True

    def _relative(self, target: Path) -> str:
        if not target.is_relative_to(self.root):
            raise StorageError(f"{target} is outside the workspace {self.root}; undo records workspace files only")
        return target.relative_to(self.root).as_posix()


def _turn_name(label: str, turn_id: str | None) -> str:
    return f'the turn "{label}"' if label else f"turn {turn_id}"
