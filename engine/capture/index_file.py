"""The capture's index between processes (``.coder/undo/index.json``): each kept file's digest and the stat fields
that tell it has not changed since, so a new process's first capture reads again only what changed meanwhile.

The file can be stale (another process changed the workspace) or planted (``.coder/`` can come with a repository),
so nothing in it is taken on its word: it is read only as a regular file of this user's, not through a link, and
only when it names this workspace's folder by its device and inode; an entry is used only for a path the walk
finds, when size, modification and change times (the kernel sets the change time: no program can put it back)
and inode all equal the file's now, and the store holds its object at that size. Anything else is read again.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path

from engine.capture.entry import Entry
from engine.capture.objects import is_digest

INDEX_FILE = "index.json"  # in ``.coder/undo/``, beside the objects folder
FORMAT = 1
MAX_INDEX_BYTES = 256 * 1024 * 1024


def load_index(path: Path, root: Path) -> dict[str, Entry]:
    """The saved entries of the files under ``root``; empty when there is no usable index."""
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
    if not isinstance(files, dict):
        return {}
    entries: dict[str, Entry] = {}
    for relative, fields in files.items():
        entry = _entry(fields)
        if entry is not None:
            entries[relative] = entry
    return entries


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
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=".index.", dir=path.parent)
    except OSError:
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(saved, handle, separators=(",", ":"))
        os.replace(temp, path)
    except OSError:
        Path(temp).unlink(missing_ok=True)


def _root_id(root: Path) -> list[int]:
    try:
        info = os.stat(root)
    except OSError:
        return []
    return [info.st_dev, info.st_ino]


def _entry(fields: object) -> Entry | None:
    if not isinstance(fields, list) or len(fields) != 6:
        return None
    mode, digest, *numbers = fields
    if not is_digest(digest) or not all(type(n) is int and n >= 0 for n in (mode, *numbers)) or mode > 0o7777:
        return None
    size, mtime_ns, ctime_ns, inode = numbers
    return Entry("file", mode, digest, size=size, mtime_ns=mtime_ns, ctime_ns=ctime_ns, inode=inode)
