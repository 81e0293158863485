"""One workspace path as the capture sees it: a regular file (its content's hash and permission bits), a folder
(its bits), a symbolic link (its target, never followed), or absent; and the stat fields that tell, without reading
the file again, that it has not changed.

A fingerprint names a state in one string; a regular file's is ``<sha256>:<mode in octal>``, the form the undo
journal has always stored for files written by write, edit and patch, so both kinds of rows compare alike.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import Literal

Kind = Literal["file", "dir", "link"]
ABSENT = "absent"


# One per workspace path, made by the thousand as a process starts: a plain slotted dataclass is made three times
# faster than a frozen one. Nothing assigns its fields after it is made; a new state is a new entry.
@dataclass(slots=True)
class Entry:
    kind: Kind
    mode: int
    digest: str | None = None  # a file's sha256 (None: over undo.max_file_mb, content not kept)
    target: str | None = None  # a link's target
    size: int = 0
    mtime_ns: int = 0
    ctime_ns: int = 0
    inode: int = 0
    epoch: int | None = None  # set by the first capture's walk: the command epoch when it read this path

    def fingerprint(self) -> str:
        return fingerprint_of(self)

    def same_stat(self, info: os.stat_result) -> bool:
        """True when ``info`` shows the file untouched since this entry was taken (content not read again)."""
        return (
            self.kind == "file"
            and stat.S_ISREG(info.st_mode)
            and self.size == info.st_size
            and self.mtime_ns == info.st_mtime_ns
            and self.ctime_ns == info.st_ctime_ns
            and self.inode == info.st_ino
        )


def fingerprint_of(entry: Entry | None) -> str:
    if entry is None:
        return ABSENT
    if entry.kind == "file":
        return f"{entry.digest or 'unread'}:{entry.mode:o}"
    if entry.kind == "link":
        return f"link:{entry.target}"
    return f"dir:{entry.mode:o}"


def kind_of(info: os.stat_result) -> Kind | None:
    """The kind of a path by its ``lstat``; None for what undo does not keep (sockets, fifos, devices)."""
    if stat.S_ISLNK(info.st_mode):
        return "link"
    if stat.S_ISDIR(info.st_mode):
        return "dir"
    if stat.S_ISREG(info.st_mode):
        return "file"
    return None
