"""Content-addressed blobs under ``.coder/blobs/`` (images attached to requests): each content is stored once,
named by its sha256, so the session file and the database keep a short reference instead of megabytes of base64."""

from __future__ import annotations

import hashlib
from pathlib import Path

from engine.storage.atomic import write_atomic
from engine.storage.names import checked_name


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
