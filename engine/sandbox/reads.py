"""Where a command that runs unasked may read (SPEC 13): the workspace, the system's program, library and
configuration folders, the toolchains ``PATH`` points into, the Python running coder, the private temp folder, a
few devices, and the folders the user's own config adds (``sandbox.readable``).

Never the home folder itself nor any folder above it (a ``PATH`` entry of ``~`` grants nothing), and not ``/proc``:
it shows every process's command line, and through ``/proc/<pid>/environ`` what each was started with. A toolchain
is its ``PATH`` folder, and the folder above when that one is named ``bin``, ``sbin`` or ``shims`` (``~/.pyenv``
for ``~/.pyenv/shims``, ``/opt/go`` for ``/opt/go/bin``), unless that is ``~/.local``, which holds far more than
programs.
"""

from __future__ import annotations

import functools
import glob
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
READABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")
_TOOLCHAIN_LEAVES = frozenset({"bin", "sbin", "shims"})


def readable_folders(
    workspace: Path, tmpdir: str, env: Mapping[str, str], extra: Iterable[str] = ()
) -> list[str]:
    """The folders an unasked command may read, real paths, without repeats; none is the home folder or above it."""
    home = env.get("HOME") or os.path.expanduser("~")
    return [tmpdir, *_fixed_folders(str(workspace), env.get("PATH", ""), home, tuple(extra))]


@functools.lru_cache(maxsize=16)
def _fixed_folders(workspace: str, path_variable: str, home_folder: str, extra: tuple[str, ...]) -> list[str]:
    """All but the temp folder, worked out once per workspace, PATH, home and config (a few dozen stat calls)."""
    home = _real(home_folder)
    candidates = [
        workspace, *SYSTEM_FOLDERS, *glob.glob("/lib*"), *_toolchains(path_variable, home),
        sys.prefix, sys.base_prefix, *(os.path.expanduser(folder) for folder in extra),
    ]  # fmt: skip
    found: list[str] = []
    for candidate in candidates:
        real = _real(candidate)
        if real and os.path.isdir(real) and not _is_home_or_above(real, home) and real not in found:
            found.append(real)
    return found


def _toolchains(path_variable: str, home: str) -> list[str]:
    folders: list[str] = []
    for entry in path_variable.split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue  # a relative PATH entry names whatever folder the command is in: the workspace already
        real = _real(entry)
        folders.append(real)
        parent = os.path.dirname(real)
        if os.path.basename(real) in _TOOLCHAIN_LEAVES and parent != os.path.join(home, ".local"):
            folders.append(parent)
    return folders


def _is_home_or_above(folder: str, home: str) -> bool:
    if folder == "/":
        return True
    return bool(home) and (home == folder or home.startswith(folder.rstrip("/") + "/"))


def _real(path: str) -> str:
    return os.path.realpath(path) if path else ""
