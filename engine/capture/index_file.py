"""The capture's index between processes (``.coder/undo/index.bin``): each kept file's digest and the stat fields
that tell it has not changed since, so a new process's first capture reads again only what changed meanwhile.

The format is compact binary, read without a parser: a header (the format's name, the workspace folder's device and
inode, the number of entries), then one fixed-size entry per file (mode, size, modification and change times,
inode, sha256) and the files' relative paths, NUL-separated. A new process reads 20,000 entries in a few
milliseconds (``struct.iter_unpack``) where decoding them as JSON took tens.

The file can be stale (another process changed the workspace) or planted (``.coder/`` can come with a repository),
so nothing in it is taken on its word: it is read only as a regular file of this user's, not through a link, and
only when it names this workspace's folder by its device and inode and its sizes add up; an entry is used only for a
path the walk finds, when size, modification and change times (the kernel sets the change time: no program can put
it back), inode and mode all equal the file's now, and the store holds its object (whose bytes undo checks against
its name before writing them anywhere). Anything else is read again.
"""

from __future__ import annotations

import os
import stat
import struct
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

from engine.capture.entry import Entry

INDEX_FILE = "index.bin"  # in ``.coder/undo/``, beside the objects folder
# The JSON index an earlier format kept beside it: removed when this one is saved.
_OLD_INDEX_FILE = "index.json"
MAGIC = b"coder-tui capture index 2\n"
HEADER = struct.Struct("<QQI")  # the workspace folder's device and inode, the number of entries
ENTRY = struct.Struct("<IQqqQ32s")  # mode, size, mtime_ns, ctime_ns, inode, sha256
MAX_INDEX_BYTES = 256 * 1024 * 1024

# One file as the index keeps it: (relative path, mode, sha256 in hex, size, mtime_ns, ctime_ns, inode).
IndexRow = tuple[str, int, str, int, int, int, int]


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
        return self._present.intersection([fields[5].hex() for fields in self._files.values()])

    def digest_for(self, relative: str, info: os.stat_result) -> str | None:
        """The saved digest of the file at ``relative`` when it is unchanged since (``info``: its ``lstat`` now)
        and its object is in the store; None when it must be read again."""
        fields = self._files.get(relative)
        if fields is None:
            return None
        mode, size, mtime_ns, ctime_ns, inode, raw = fields
        if (
            size != info.st_size or mtime_ns != info.st_mtime_ns or ctime_ns != info.st_ctime_ns
            or inode != info.st_ino or mode != stat.S_IMODE(info.st_mode) or not stat.S_ISREG(info.st_mode)
        ):
            return None
        digest = raw.hex()
        return digest if digest in self._present else None


def save_index(path: Path, root: Path, files: dict[str, Entry]) -> None:
    """Writes the entries of ``files`` (kept files only) atomically, readable by this user only. A failure to
    write costs the next process a full read, nothing else: it is not raised."""
    rows = (
        (relative, entry.mode, entry.digest, entry.size, entry.mtime_ns, entry.ctime_ns, entry.inode)
        for relative, entry in files.items()
        if entry.digest
    )
    data = index_bytes(root, rows)
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
        return
    (path.parent / _OLD_INDEX_FILE).unlink(missing_ok=True)


def index_bytes(root: Path, rows: Iterable[IndexRow]) -> bytes:
    """The saved form of ``rows`` for the workspace folder ``root``."""
    paths: list[str] = []
    entries = bytearray()
    for relative, mode, digest, size, mtime_ns, ctime_ns, inode in rows:
        paths.append(relative)
        entries += ENTRY.pack(mode, size, mtime_ns, ctime_ns, inode, bytes.fromhex(digest))
    device, inode = _root_id(root) or (0, 0)
    names = "\0".join(paths).encode("utf-8", "surrogateescape")
    return MAGIC + HEADER.pack(device, inode, len(paths)) + bytes(entries) + names


def _root_id(root: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(root)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _load(path: Path, root: Path) -> dict[str, tuple[int, int, int, int, int, bytes]]:
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
            data = handle.read()
        except OSError:
            return {}
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + HEADER.size:
        return {}
    device, inode, count = HEADER.unpack_from(data, len(MAGIC))
    start = len(MAGIC) + HEADER.size
    end = start + count * ENTRY.size
    if count == 0 or (device, inode) != _root_id(root) or end >= len(data):
        return {}
    paths = data[end:].decode("utf-8", "surrogateescape").split("\0")
    if len(paths) != count:
        return {}
    return dict(zip(paths, ENTRY.iter_unpack(data[start:end])))
