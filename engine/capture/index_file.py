"""The capture's index between processes (``.coder/undo/index.json``): each kept file's digest and the stat fields
that tell it has not changed since, so a new process's first capture reads again only what changed meanwhile.

The file can be stale (another process changed the workspace) or planted (``.coder/`` can come with a repository),
so nothing in it is taken on its word: it is read only as a regular file of this user's, not through a link, and
only when it names this workspace's folder by its device and inode; an entry is used only for a path the walk
finds, when size, modification and change times (the kernel sets the change time: no program can put it back),
inode and mode all equal the file's now, and the store holds its object (whose bytes undo checks against its name
before writing them anywhere). Anything else is read again.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from engine.capture.entry import Entry

INDEX_FILE = "index.json"  # in ``.coder/undo/``, beside the objects folder
FORMAT = 1
MAX_INDEX_BYTES = 256 * 1024 * 1024


class SavedIndex:
    """The saved index of one workspace, read from ``path``; empty when there is none usable. Entries are checked
    one by one as the walk asks for them (most of a large workspace's are asked once)."""

    def __init__(self, path: Path | None, root: Path, present: Callable[[], set[str]]) -> None:
        self._files = _load(path, root) if path is not None else {}
        self._present = present() if self._files else set()

    def __len__(self) -> int:
        return len(self._files)

    def digests(self) -> set[str]:
        """The saved digests whose objects the store holds: what the walk may take without reading."""
        named = {
            fields[1] for fields in self._files.values()
            if isinstance(fields, list) and len(fields) == 6 and isinstance(fields[1], str)
        }
        return self._present.intersection(named)

    def digest_for(self, relative: str, info: os.stat_result) -> str | None:
        """The saved digest of the file at ``relative`` when it is unchanged since (``info``: its ``lstat`` now)
        and its object is in the store; None when it must be read again."""
        fields = self._files.get(relative)
        if fields is None:
            return None
        try:
            mode, digest, size, mtime_ns, ctime_ns, inode = fields  # type: ignore[misc]
        except (TypeError, ValueError):
            return None
        unchanged = (
            size == info.st_size and mtime_ns == info.st_mtime_ns and ctime_ns == info.st_ctime_ns
            and inode == info.st_ino and mode == stat.S_IMODE(info.st_mode) and stat.S_ISREG(info.st_mode)
        )
        if not unchanged or digest.__class__ is not str or digest not in self._present:
            return None
        return digest


def save_index(path: Path, root: Path, files: dict[str, Entry]) -> None:
    """Writes the entries of ``files`` (kept files only) atomically, readable by this user only. A failure to
    write costs the next process a full read, nothing else: it is not raised."""
    saved = {
        "format": FORMAT,
        "root": _root_id(root),
        "files": {
            relative: [entry.mode, entry.digest, entry.size, entry.mtime_ns, entry.ctime_ns, entry.inode]
            for relative, entry in files.items()
        },
    }
    data = json.dumps(saved, separators=(",", ":")).encode()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=".index.", dir=path.parent)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except OSError:
        Path(temp).unlink(missing_ok=True)


def _root_id(root: Path) -> list[int]:
    try:
        info = os.stat(root)
    except OSError:
        return []
    return [info.st_dev, info.st_ino]


def _load(path: Path, root: Path) -> dict[str, object]:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return {}
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        mine = not hasattr(os, "getuid") or info.st_uid == os.getuid()
        if not stat.S_ISREG(info.st_mode) or not mine or info.st_size > MAX_INDEX_BYTES:
            return {}
        try:
            saved = json.loads(handle.read())
        except (OSError, ValueError):
            return {}
    if not isinstance(saved, dict) or saved.get("format") != FORMAT or saved.get("root") != _root_id(root):
        return {}
    files = saved.get("files")
    return files if isinstance(files, dict) else {}
