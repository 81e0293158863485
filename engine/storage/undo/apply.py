"""Putting a turn's paths back (SPEC 7): every path checked inside the workspace before anything is written, then
what the turn made is removed (deepest first), folders, files and links are put back (shallowest first) and
folders get their permission bits last (a read-only folder is filled before it is locked).

A path the undo data names is used only when it is a plain relative path none of whose existing folders is a link
(a link planted in a folder's place cannot redirect the write, inside or outside the workspace), and never under ``.git/`` or
``.coder/``: undo data that names anything else is refused as a whole, before any change.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path

from engine.record import record
from engine.storage.errors import StorageError
from engine.storage.undo.file_state import folders_between, remove_empty_folders, write_state

_FORBIDDEN_TOP = (".git", ".coder")


@record
class PathBefore:
    """One undo row: the path's state before the turn (``kind`` absent, file, dir or link)."""

    path: str
    kind: str
    mode: int | None
    blob: str | None
    target: str | None
    created_dirs: str | None
    after_state: str | None


@record
class Applied:
    deleted: tuple[str, ...]
    restored: tuple[str, ...]
    recreated: tuple[str, ...]
    kept: tuple[str, ...]  # folders the turn made that still hold what undo does not keep
    errors: tuple[str, ...]


def inside(root: Path, relative: str) -> Path:
    """``root / relative`` when that is safely inside the workspace; ``StorageError`` otherwise."""
    parts = relative.split("/")
    if (
        not relative
        or "\x00" in relative
        or relative.startswith("/")
        or any(part in ("", ".", "..") for part in parts)
        or parts[0] in _FORBIDDEN_TOP
    ):
        raise StorageError(f"the undo data names {relative!r}, which is not a path inside the workspace: refused")
    target = root / relative
    folder = root
    for part in parts[:-1]:
        folder = folder / part
        if folder.is_symlink():
            raise StorageError(f"the undo data names {relative!r}, whose folder {part!r} is a link: refused")
    return target


def state_now(path: Path) -> str:
    """The fingerprint of what is at ``path`` now (the format of ``engine.capture.entry.fingerprint_of``)."""
    try:
        info = path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        return "absent"
    mode = stat.S_IMODE(info.st_mode)
    if stat.S_ISLNK(info.st_mode):
        return f"link:{os.readlink(path)}"
    if stat.S_ISDIR(info.st_mode):
        return f"dir:{mode:o}"
    if stat.S_ISREG(info.st_mode):
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
        return f"{digest.hexdigest()}:{mode:o}"
    return "other"


def _kind_now(path: Path) -> str:
    try:
        info = path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        return "absent"
    if stat.S_ISLNK(info.st_mode):
        return "link"
    if stat.S_ISDIR(info.st_mode):
        return "dir"
    return "file" if stat.S_ISREG(info.st_mode) else "other"


def _depth(row: PathBefore) -> int:
    return row.path.count("/")


def apply_rows(root: Path, rows: Sequence[PathBefore], read_blob: Callable[[str], bytes]) -> Applied:
    targets = {row.path: inside(root, row.path) for row in rows}  # raises before any change
    kinds = {row.path: _kind_now(targets[row.path]) for row in rows}
    deleted: list[str] = []
    restored: list[str] = []
    recreated: list[str] = []
    kept: list[str] = []
    errors: list[str] = []
    removed: set[str] = set()
    for row in sorted(rows, key=_depth, reverse=True):
        now, path = kinds[row.path], targets[row.path]
        wrong_link = row.kind == "link" and now == "link" and os.readlink(path) != row.target
        if now == "absent" or (now == row.kind and not wrong_link):
            continue
        try:
            if now == "dir":
                path.rmdir()
            else:
                path.unlink()
        except OSError as exc:
            if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
                kept.append(f"{row.path}/ (made by the turn; kept: it holds files undo does not keep)")
            else:
                errors.append(f"{row.path}: cannot remove: {exc.strerror or exc}")
            continue
        removed.add(row.path)
        if row.kind == "absent":
            deleted.append(row.path)
    remove_empty_folders(
        folder
        for row in rows
        if row.kind == "absent" and row.created_dirs
        for folder in folders_between((root / row.path).parent, root / row.created_dirs)
    )
    folders: list[PathBefore] = []
    for row in sorted(rows, key=_depth):
        if row.kind == "absent":
            continue
        path = inside(root, row.path)
        was = "absent" if row.path in removed else kinds[row.path]
        verb = recreated if was == "absent" else restored
        try:
            if row.kind == "dir":
                if was == "absent":
                    path.mkdir(mode=0o700)
                    verb.append(row.path)
                folders.append(row)
            elif row.kind == "link":
                if was == "absent":
                    os.symlink(row.target or "", path)
                    verb.append(row.path)
            elif row.blob is not None and row.mode is not None:
                data = read_blob(row.blob)
                if was == "absent" or state_now(path) != f"{hashlib.sha256(data).hexdigest()}:{row.mode:o}":
                    write_state(path, data, row.mode)
                    verb.append(row.path)
            else:
                errors.append(f"{row.path}: its content before the turn was not kept")
        except (OSError, StorageError) as exc:
            errors.append(f"{row.path}: cannot restore: {exc}")
    for row in sorted(folders, key=_depth, reverse=True):
        path = targets[row.path]
        try:
            if row.mode is not None and stat.S_IMODE(path.lstat().st_mode) != row.mode:
                os.chmod(path, row.mode)
                if row.path not in recreated:
                    restored.append(row.path)
        except OSError as exc:
            errors.append(f"{row.path}: cannot set its permissions: {exc.strerror or exc}")
    return Applied(tuple(deleted), tuple(restored), tuple(recreated), tuple(kept), tuple(errors))
