"""Atomic file replacement: a reader never sees a half-written file, a crash never leaves one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: bytes, *, mode: int | None = None, fsync: bool = False) -> None:
    """Writes ``data`` to a temp file in the same folder and renames it over ``path``.

    The rename alone protects against a killed process; ``fsync`` adds protection against power loss at a cost of
    milliseconds per write, so it is asked for only where that matters.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if fsync:
                handle.flush()
                os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp_name, mode)
        os.replace(tmp_name, path)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
