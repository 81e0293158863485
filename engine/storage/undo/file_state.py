"""A file's state as undo sees it: its bytes and permission bits, or absence, and a fingerprint of the two.

Restores are atomic (a temp file in the same folder, chmod, then ``os.replace``), so an undo interrupted half-way
never leaves a half-written file; the modification time is deliberately not restored: a build tool comparing
times would otherwise take a changed file for an up-to-date one.
"""

from __future__ import annotations

import hashlib
import os
import stat
import uuid
from collections.abc import Iterable
from pathlib import Path

from engine.record import record

ABSENT = "absent"


@record
class FileState:
    """``data is None``: the path does not exist."""

    data: bytes | None
    mode: int | None = None

    @property
    def exists(self) -> bool:
        return self.data is not None

    def fingerprint(self) -> str:
        if self.data is None:
            return ABSENT
        return f"{hashlib.sha256(self.data).hexdigest()}:{self.mode or 0:o}"


def read_state(path: Path) -> FileState:
    """The file at ``path`` now. A folder or other non-file there raises ``IsADirectoryError``/``OSError``: undo
    handles regular files only, which is all write, edit and patch make."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return FileState(None)
    if stat.S_ISLNK(info.st_mode):
        raise OSError(f"{path} is a symbolic link; undo snapshots regular files only")
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(f"{path} is a folder, not a file")
    return FileState(path.read_bytes(), stat.S_IMODE(info.st_mode))


def write_state(path: Path, data: bytes, mode: int) -> None:
    """Puts ``data`` at ``path`` with exactly ``mode``, atomically; missing parent folders are created."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.undo.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def missing_top(path: Path, root: Path) -> Path | None:
    """The outermost folder between ``root`` and ``path`` that does not exist yet (what creating ``path`` will
    create), or None when the parent folder already exists."""
    top: Path | None = None
    parent = path.parent
    while parent != root and root in parent.parents and not parent.exists():
        top = parent
        parent = parent.parent
    return top


def folders_between(start: Path, top: Path) -> list[Path]:
    """``start`` and its parents up to ``top`` included; empty when ``top`` is not ``start`` or one of its parents."""
    if start != top and top not in start.parents:
        return []
    folders = [start]
    while folders[-1] != top:
        folders.append(folders[-1].parent)
    return folders


def remove_empty_folders(folders: Iterable[Path]) -> None:
    """Removes each folder that is empty, deepest first, so a parent emptied by removing its children goes too."""
    for folder in sorted(set(folders), key=lambda path: len(path.parts), reverse=True):
        try:
            folder.rmdir()
        except OSError:
            continue  # not empty (or already gone): it stays
