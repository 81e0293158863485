"""The content files of the undo journal: ``.coder/undo/<session>/<turn>/<n>`` hold a file's bytes before a turn,
``.coder/undo/<session>/baseline/<name>`` its bytes before the session first touched it (for ``/diff``).

Each is written atomically and readable by the owner only (0600): they are copies of workspace files, secrets
included. A turn's folder goes as a whole when the turn is undone or falls off the stack.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Collection
from pathlib import Path

from engine.storage.atomic import write_atomic
from engine.storage.errors import StorageError
from engine.storage.names import is_safe_name

BASELINE_DIR = "baseline"


class UndoBlobs:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def write(self, turn_row: int, index: int, data: bytes) -> str:
        """Keeps ``data`` as the ``index``-th file of a turn; returns the name the journal's row stores."""
        name = f"{turn_row}/{index}"
        self._write(name, data)
        return name

    def keep_as_baseline(self, turn_blob: str) -> str:
        """A second name for a turn's content file that outlives the turn: a hard link, or a copy where the file
        system has none."""
        name = f"{BASELINE_DIR}/{uuid.uuid4().hex}"
        target = self.folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(self.folder / turn_blob, target)
        except OSError:
            self._write(name, self.read(turn_blob))
        return name

    def read(self, name: str) -> bytes:
        """``name`` as a row of the journal stores it; one that could lead outside this folder is refused."""
        if not all(is_safe_name(part) for part in name.split("/")) or name.count("/") != 1:
            raise StorageError(f"refused the undo copy name {name!r}: not one this journal makes")
        try:
            return (self.folder / name).read_bytes()
        except OSError as exc:
            raise StorageError(
                f"the undo copy {self.folder / name} is missing or unreadable: {exc.strerror or exc}"
            ) from exc

    def drop_turn(self, turn_row: int) -> None:
        shutil.rmtree(self.folder / str(turn_row), ignore_errors=True)

    def sweep(self, live_turns: Collection[int], live_baselines: Collection[str]) -> None:
        """Removes content files no row refers to: left by a crash between writing a file and its row."""
        if not self.folder.is_dir():
            return
        turns = {str(row) for row in live_turns}
        for entry in self.folder.iterdir():
            if entry.name.isdigit() and entry.name not in turns:
                shutil.rmtree(entry, ignore_errors=True)
        baseline_dir = self.folder / BASELINE_DIR
        if baseline_dir.is_dir():
            for entry in baseline_dir.iterdir():
                if f"{BASELINE_DIR}/{entry.name}" not in live_baselines:
                    entry.unlink(missing_ok=True)

    def _write(self, name: str, data: bytes) -> None:
        try:
            write_atomic(self.folder / name, data, mode=0o600)
        except OSError as exc:
            raise StorageError(f"cannot keep an undo copy in {self.folder / name}: {exc.strerror or exc}") from exc
