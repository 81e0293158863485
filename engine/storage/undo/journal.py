"""Per-turn undo (SPEC 7): each path a turn changed, with its state before the turn (first change in the turn
wins), so ``undo_last_turn`` puts it back: files byte for byte with their bits, folders, links; what the turn
created is removed, what it deleted recreated. Turns form a stack ``max_turns`` deep, per session, and survive a
restart. No git involved.

One recorder, two inputs: ``record`` before write, edit or patch first touches a file (the tool refuses the change
when it cannot be kept; it covers files the capture skips), and ``record_captured`` with what the workspace capture
saw a tool call change (any tool, a shell command's included). A path is recorded once a turn.

Rows live in the database, contents in the capture's content store (``engine.capture.objects``), never in the
database: undo needs the exact bytes, which cannot be redacted (SPEC 12 keeps secrets out of it). A copy is stored
before its row: a crash can leave an unnamed copy, never a dangling row. Older journals' copies move into the store
when opened (``legacy``). Files changed by someone else after the turn ended are detected by fingerprint
(sha256 + mode, taken when the turn ends) and reported before anything is overwritten; ``force=True`` undoes anyway.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engine.capture.entry import Entry, kind_of
from engine.capture.objects import OBJECT_PREFIX, ObjectStore, ObjectStoreError, object_name
from engine.record import record as as_record
from engine.storage.db import Database, utc_now
from engine.storage.errors import StorageError
from engine.storage.names import checked_name
from engine.storage.sessions.conversation_log import make_title
from engine.storage.undo.apply import PathBefore, apply_rows, inside, state_now
from engine.storage.undo.file_state import FileState, missing_top, read_state
from engine.storage.undo.legacy import adopt_legacy_copies
from engine.storage.undo.result import SessionChange, UndoResult, turn_name

if TYPE_CHECKING:
    from engine.capture.capture import Captured

NOTHING_TO_UNDO = "nothing to undo: no change made by a turn is left on this session's undo stack"


@as_record
class _Before:
    """One path's state before the turn, as a row keeps it."""

    path: str
    entry: Entry | None  # None: absent
    created_dirs: str | None = None  # a file tool's new file: the outermost folder it made for it


@dataclass
class _OpenTurn:
    turn_id: str
    label: str
    row: int | None = None  # created in the database on the first record
    paths: set[str] = field(default_factory=set)
    not_captured: dict[str, str] = field(default_factory=dict)


class UndoJournal:
    def __init__(
        self,
        db: Database,
        session_id: str,
        workspace_root: Path,
        *,
        max_turns: int,
        objects: ObjectStore,
        clock: Callable[[], str] = utc_now,
        redact: Callable[[str], str] = str,
    ) -> None:
        if max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, got {max_turns}")
        self._db = db
        self.session_id = session_id
        self.root = Path(os.path.realpath(workspace_root))
        self.max_turns = max_turns
        self.objects = objects
        self._now = clock
        self._redact = redact
        self._turn: _OpenTurn | None = None
        legacy = self.root / ".coder" / "undo" / checked_name(session_id, "session id")
        adopt_legacy_copies(db, session_id, legacy, self.objects)
        self._seal_interrupted_turns()

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
    @property
    def in_turn(self) -> bool:
        return self._turn is not None

    def begin_turn(self, turn_id: str, label: str = "") -> None:
        if self._turn is not None:
            self.end_turn()
        self._turn = _OpenTurn(turn_id, make_title(self._redact(label)))

    def record(self, path: Path) -> None:
        """Call before ``path`` is written or deleted. Only the first call per path in a turn keeps anything: that
        is the state before the turn. Raises ``StorageError`` when the file cannot be snapshotted, so the caller
        can refuse the change rather than make one that cannot be undone."""
        turn = self._open("record")
        target = Path(os.path.realpath(path))
        relative = self._relative(target)
        if relative in turn.paths:
            return
        try:
            info = target.lstat()
        except FileNotFoundError:
            created = missing_top(target, self.root)
            self._keep(turn, [_Before(relative, None, None if created is None else self._relative(created))])
            return
        except OSError as exc:
            raise StorageError(f"cannot snapshot {relative} for undo: {exc}") from exc
        kind = kind_of(info)
        if kind == "dir":
            return  # write/edit/patch refuse folders themselves; there is nothing to keep
        if kind != "file":
            raise StorageError(f"cannot snapshot {relative} for undo: not a regular file")
        try:
            digest = self.objects.put_file(target)
        except (OSError, ObjectStoreError) as exc:
            raise StorageError(f"cannot snapshot {relative} for undo: {exc}") from exc
        self._keep(turn, [_Before(relative, Entry("file", stat.S_IMODE(info.st_mode), digest))])

    def record_captured(self, captured: Captured) -> None:
        """Keeps what a tool call changed, as the workspace capture saw it (any tool, a shell command's included),
        and names what could not be kept."""
        turn = self._open("record_captured")
        kept: list[_Before] = []
        for change in captured.changes:
            before = change.before
            if change.path in turn.paths:
                continue
            if before is not None and before.kind == "file" and before.digest is None:
                turn.not_captured.setdefault(
                    change.path, "over undo.max_file_mb or unreadable: its earlier content was not kept"
                )
                continue
            kept.append(_Before(change.path, before))
        for path in captured.unknown:
            turn.not_captured.setdefault(path, "changed while the first capture was still reading the workspace")
        for skipped in captured.skipped:
            turn.not_captured.setdefault(skipped.path, skipped.reason)
        if kept or turn.not_captured:
            self._keep(turn, kept)

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
                "SELECT id, turn_id, label, not_captured FROM undo_turns WHERE session_id = ? ORDER BY id DESC LIMIT 1",
                (self.session_id,),
            ).fetchone()
        if row is None:
            return UndoResult(applied=False, reason=NOTHING_TO_UNDO)
        turn_row, turn_id, label, missed = row
        not_captured = tuple(json.loads(missed or "[]"))
        name = turn_name(label, turn_id)
        snapshots = self._snapshots(turn_row)
        current: dict[str, str] = {}
        problems: list[str] = []
        for snap in snapshots:
            try:
                current[snap.path] = state_now(inside(self.root, snap.path))
            except (OSError, StorageError) as exc:
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
            snap.path for snap in snapshots if snap.after_state is not None and current[snap.path] != snap.after_state
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
        done = apply_rows(self.root, snapshots, self._read_blob)
        errors = done.errors
        if not errors:
            self._drop_turns([turn_row])
        return UndoResult(
            applied=not errors,
            turn_id=turn_id,
            label=label,
            restored=done.restored,
            deleted=done.deleted,
            recreated=done.recreated,
            conflicts=conflicts,
            errors=errors,
            not_captured=not_captured + done.kept,
            remaining=self.depth,
            reason=(
                f"{name} was only partly undone and stays on the undo stack: {'; '.join(errors)}" if errors else ""
            ),
        )

    def files_changed(self) -> dict[str, int]:
        """How many paths each turn on the stack changed, by task id (``/rewind`` shows it per request)."""
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT t.turn_id, COUNT(f.path) FROM undo_turns t LEFT JOIN undo_files f ON f.turn = t.id "
                "WHERE t.session_id = ? GROUP BY t.id",
                (self.session_id,),
            ).fetchall()
        counts: dict[str, int] = {}
        for turn_id, count in rows:
            counts[turn_id] = counts.get(turn_id, 0) + count
        return counts

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
                before = FileState(self._read_blob(blob), mode) if existed else FileState(None)
                after = read_state(self.root / path)
            except (OSError, StorageError):
                continue  # a folder now, or a lost copy: nothing comparable to show
            if before.fingerprint() != after.fingerprint():
                changes.append(SessionChange(path, before, after))
        return changes

    # -- inside ---------------------------------------------------------------------------------------------------
    def _open(self, caller: str) -> _OpenTurn:
        if self._turn is None:
            raise RuntimeError(f"UndoJournal.{caller} was called outside a turn: call begin_turn first")
        return self._turn

    def _keep(self, turn: _OpenTurn, befores: Sequence[_Before]) -> None:
        """Writes the rows of ``befores`` (their contents already in the store), the session's first state of each
        file (for ``/diff``), and what the turn could not keep."""
        rows: list[tuple[object, ...]] = []
        baselines: list[tuple[object, ...]] = []
        for before in befores:
            entry = before.entry
            kind, mode, target = ("absent", None, None) if entry is None else (entry.kind, entry.mode, entry.target)
            blob = object_name(entry.digest) if entry is not None and entry.digest else None
            rows.append((before.path, int(entry is not None), mode, blob, kind, target, before.created_dirs))
            if kind in ("absent", "file"):
                baselines.append((self.session_id, before.path, int(entry is not None), mode, blob))
            turn.paths.add(before.path)
        if turn.row is None:
            turn.row = self._insert_turn(turn)
        with self._db.transaction() as conn:
            conn.executemany(
                "INSERT INTO undo_files (turn, path, existed, mode, blob, kind, target, created_dirs) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(turn.row, *row) for row in rows],
            )
            conn.executemany(
                "INSERT OR IGNORE INTO undo_baselines (session_id, path, existed, mode, blob) VALUES (?, ?, ?, ?, ?)",
                baselines,
            )
            if turn.not_captured:
                conn.execute(
                    "UPDATE undo_turns SET not_captured = ? WHERE id = ?",
                    (json.dumps(sorted(f"{path} ({why})" for path, why in turn.not_captured.items())), turn.row),
                )

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
                fingerprint: str | None = state_now(self.root / snap.path)
            except OSError:
                fingerprint = None  # unreadable now: undo will report it
            fingerprints.append((fingerprint, turn_row, snap.path))
        with self._db.transaction() as conn:
            conn.executemany("UPDATE undo_files SET after_state = ? WHERE turn = ? AND path = ?", fingerprints)
            conn.execute("UPDATE undo_turns SET ended_at = ? WHERE id = ?", (self._now(), turn_row))

    def _prune(self) -> None:
        dropped = self._turn_rows()[self.max_turns :]
        if dropped:
            self._drop_turns(dropped)

    def _drop_turns(self, turn_rows: list[int]) -> None:
        """Deletes turns from the stack, and the copies they named that no row (of any session) and no live
        capture index names any more."""
        marks = ",".join("?" * len(turn_rows))
        with self._db.read() as conn:
            candidates = [
                row[0][len(OBJECT_PREFIX):]
                for row in conn.execute(
                    f"SELECT blob FROM undo_files WHERE turn IN ({marks}) AND blob LIKE 'sha256:%'", turn_rows
                )
            ]
        with self._db.transaction() as conn:
            conn.executemany("DELETE FROM undo_turns WHERE id = ?", [(row,) for row in turn_rows])
        self.objects.prune(candidates, self._named_objects())

    def _named_objects(self) -> set[str]:
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT blob FROM undo_files WHERE blob LIKE 'sha256:%' "
                "UNION SELECT blob FROM undo_baselines WHERE blob LIKE 'sha256:%'"
            ).fetchall()
        return {row[0][len(OBJECT_PREFIX):] for row in rows}

    def _read_blob(self, name: str) -> bytes:
        if not name.startswith(OBJECT_PREFIX):
            raise StorageError(f"refused the undo copy name {name!r}: not one this journal makes")
        try:
            return self.objects.read(name[len(OBJECT_PREFIX):])
        except ObjectStoreError as exc:
            raise StorageError(str(exc)) from exc

    def _seal_interrupted_turns(self) -> None:
        """A turn the process never ended (it was killed) is sealed with its files as they are now: the agent was
        the last to write them."""
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT id FROM undo_turns WHERE session_id = ? AND ended_at IS NULL", (self.session_id,)
            ).fetchall()
        for (row,) in rows:
            self._seal(row)

    def _turn_rows(self) -> list[int]:
        """The turns on the stack, newest first."""
        with self._db.read() as conn:
            rows = conn.execute("SELECT id FROM undo_turns WHERE session_id = ? ORDER BY id DESC", (self.session_id,))
            return [row[0] for row in rows]

    def _snapshots(self, turn_row: int) -> list[PathBefore]:
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT path, existed, kind, mode, blob, target, created_dirs, after_state FROM undo_files "
                "WHERE turn = ? ORDER BY rowid",
                (turn_row,),
            ).fetchall()
        return [
            PathBefore(path, kind or ("file" if existed else "absent"), mode, blob, target, dirs, after)
            for path, existed, kind, mode, blob, target, dirs, after in rows
        ]

    def _relative(self, target: Path) -> str:
        if not target.is_relative_to(self.root):
            raise StorageError(f"{target} is outside the workspace {self.root}; undo records workspace files only")
        return target.relative_to(self.root).as_posix()
