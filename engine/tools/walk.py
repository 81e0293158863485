"""Bounded walks of the file tree (SPEC 13): the pure-Python glob and grep (when ``rg`` is missing) and a skill's
file list go through here, never through ``os.walk`` or ``Path.rglob`` directly.

A walk never follows a symlink (``os.fwalk`` with ``follow_symlinks=False``: each folder is opened relative to the
one before it, so a link swapped in cannot lead it out), stops at ``max_depth`` folders deep (a 1,500-deep chain
costs what 64 levels cost, and never meets Python's recursion limit), after ``max_entries`` names and after
``max_seconds``, and when its ``stop`` event is set. It runs in a thread; ``run_walk`` sets ``stop`` when the awaiting
task is cancelled (Esc, a signal), so the thread ends at its next folder instead of walking on. What a walk left
out is said in ``Walked.note``.
"""

from __future__ import annotations

import asyncio
import os
import stat
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from engine.record import record
from engine.tools.opened_where_checked import open_checked

DEFAULT_MAX_DEPTH = 64
DEFAULT_MAX_ENTRIES = 200_000
DEFAULT_MAX_SECONDS = 20.0

T = TypeVar("T")


@record
class WalkLimits:
    max_depth: int = DEFAULT_MAX_DEPTH
    max_entries: int = DEFAULT_MAX_ENTRIES
    max_seconds: float = DEFAULT_MAX_SECONDS


@dataclass
class Walked:
    """The regular files found (posix paths relative to the walked folder, sorted) and what was left out."""

    files: list[str] = field(default_factory=list)
    note: str | None = None


def regular_files(
    base: Path,
    *,
    skip: Collection[str] = (),
    keep: Callable[[str], bool] | None = None,
    limits: WalkLimits = WalkLimits(),
    stop: threading.Event | None = None,
) -> Walked:
    """The regular files under the real folder ``base`` (opened where the guard checked it), never through a symlink,
    never inside a folder named in ``skip``; only those whose relative path ``keep`` accepts when it is given."""
    walked = Walked()
    deadline = time.monotonic() + limits.max_seconds
    seen = 0
    top = open_checked(base, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for folder, subfolders, names, folder_fd in os.fwalk(".", dir_fd=top, follow_symlinks=False):
            if stop is not None and stop.is_set():
                walked.note = "the search was cancelled"
                break
            if time.monotonic() > deadline:
                walked.note = f"stopped after {limits.max_seconds:g}s: the folder tree is too large to walk in full"
                break
            relative = folder[2:] if folder.startswith("./") else ""
            depth = relative.count("/") + 1 if relative else 0
            subfolders[:] = sorted(name for name in subfolders if name not in skip)
            if depth >= limits.max_depth and subfolders:
                walked.note = f"folders deeper than {limits.max_depth} levels were not searched"
                subfolders.clear()
            seen += len(names) + len(subfolders)
            for name in names:
                path = f"{relative}/{name}" if relative else name
                if (keep is None or keep(path)) and _is_regular(name, folder_fd):
                    walked.files.append(path)
            if seen > limits.max_entries:
                walked.note = (
                    f"stopped after {limits.max_entries} entries: the folder tree is too large to walk in full"
                )
                break
    finally:
        os.close(top)
    walked.files.sort()
    return walked


def _is_regular(name: str, folder_fd: int) -> bool:
    try:
        return stat.S_ISREG(os.stat(name, dir_fd=folder_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


async def run_walk(work: Callable[[threading.Event], T]) -> T:
    """``work(stop)`` in a thread; if the awaiting task is cancelled, ``stop`` is set so the thread ends soon."""
    stop = threading.Event()
    try:
        return await asyncio.to_thread(work, stop)
    except asyncio.CancelledError:
        stop.set()
        raise
