"""The state of a folder tree as undo must restore it: each path's kind, bytes, permission bits and link target."""

from __future__ import annotations

import os
import stat
from pathlib import Path

SKIPPED_TOP = (".coder", ".git", ".xdg")


def tree_state(root: Path) -> dict[str, tuple[object, ...]]:
    state: dict[str, tuple[object, ...]] = {}
    for folder, dirs, files in os.walk(root):
        relative_folder = Path(folder).relative_to(root)
        if relative_folder == Path("."):
            dirs[:] = [name for name in dirs if name not in SKIPPED_TOP]
            files = [name for name in files if name not in SKIPPED_TOP]
        for name in [*dirs, *files]:
            path = Path(folder) / name
            info = path.lstat()
            key = (relative_folder / name).as_posix()
            mode = stat.S_IMODE(info.st_mode)
            if stat.S_ISLNK(info.st_mode):
                state[key] = ("link", os.readlink(path))
            elif stat.S_ISDIR(info.st_mode):
                state[key] = ("dir", mode)
            else:
                state[key] = ("file", path.read_bytes(), mode)
    return state
