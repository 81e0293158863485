"""Content-addressed blobs under ``.coder/blobs/`` (images attached to requests): each content is stored once,
named by its sha256, so the session file and the database keep a short reference instead of megabytes of base64.

A reference read back from a session may have come with the repository (SPEC 19), so ``read_blob`` reads only a
regular file named ``<sha256>.<ext>`` in a ``.coder/blobs/`` folder, not through a link, and only when its bytes
hash to its name: a shipped session cannot make coder-tui read ``~/.ssh/id_rsa`` or ``/dev/zero`` and send it."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from engine.storage.atomic import write_atomic
from engine.storage.names import checked_name, is_safe_name

MAX_BLOB_BYTES = 32 * 1024 * 1024


class BlobStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def for_workspace(cls, workspace: Path) -> BlobStore:
        return cls(workspace / ".coder" / "blobs")

    def put(self, data: bytes, suffix: str = "") -> Path:
        """Stores ``data`` (once: the same bytes are never written twice) and returns the blob's path."""
        path = self.root / checked_name(f"{hashlib.sha256(data).hexdigest()}{suffix.lower()}", "blob name")
        if not path.exists():
            write_atomic(path, data)
        return path


def read_blob(reference: str) -> bytes | None:
    """The bytes of the blob ``reference`` names, or None when it is gone or not a blob this store wrote."""
    path = Path(reference)
    digest = path.name.partition(".")[0]
    in_blobs = path.parent.name == "blobs" and path.parent.parent.name == ".coder"
    if not is_safe_name(path.name) or len(digest) != 64 or not in_blobs:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BLOB_BYTES:
            return None
        data = handle.read(MAX_BLOB_BYTES + 1)
    return data if hashlib.sha256(data).hexdigest() == digest else None
