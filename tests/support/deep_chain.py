"""A chain of folders deeper than Python's recursion limit, made and removed one level at a time.

``shutil.rmtree``, and so pytest's clean-up of old temp folders at exit, recurses once per level and fails on such a
chain (a RecursionError printed at the end of the run): a test that makes one removes it itself.
"""

from __future__ import annotations

import os
from pathlib import Path

LEVEL = "d"


def make_chain(parent: Path, depth: int, top: str, leaf: str, content: bytes = b"") -> Path:
    """``parent/top/d/d/.../d`` (``depth`` folders) with the file ``leaf`` at the bottom; each folder is made relative
    to its parent's descriptor, as the absolute path grows too long for the system. Returns ``parent/top``."""
    folder = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in [top] + [LEVEL] * (depth - 1):
            os.mkdir(name, dir_fd=folder)
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=folder)
            os.close(folder)
            folder = inner
        bottom = os.open(leaf, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=folder)
        os.write(bottom, content)
        os.close(bottom)
    finally:
        os.close(folder)
    return parent / top


def remove_chain(top: Path) -> None:
    """Removes ``top`` and the chain under it bottom up: the files at each level, and the folders named ``d``."""
    fds = [os.open(top, os.O_RDONLY | os.O_DIRECTORY)]
    while LEVEL in os.listdir(fds[-1]):
        fds.append(os.open(LEVEL, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fds[-1]))
    while fds:
        fd = fds.pop()
        for name in os.listdir(fd):
            if name != LEVEL:
                os.unlink(name, dir_fd=fd)
        if fds:
            os.rmdir(LEVEL, dir_fd=fds[-1])
        os.close(fd)
    os.rmdir(top)
