"""File work off the event loop only when it is worth it. A thread hop costs a few hundred microseconds of two
threads handing over the GIL, more than reading a small file takes; a large file, or one on a slow disk, is read in
a thread so the loop (the UI's keystrokes, a cancel) is never held up by it."""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

# A file up to this size is read on the loop: well under a millisecond from the page cache.
INLINE_MAX_BYTES = 64 * 1024


async def run_file_work(path: Path, work: Callable[[], T]) -> T:
    """``work()`` (which reads ``path``) at once when ``path`` is a small regular file, else in a thread. Anything
    else (a folder, a FIFO, a missing file) goes to the thread too, where ``work`` meets it and says what it is."""
    try:
        info = os.stat(path)
    except OSError:
        return await asyncio.to_thread(work)
    if stat.S_ISREG(info.st_mode) and info.st_size <= INLINE_MAX_BYTES:
        return work()
    return await asyncio.to_thread(work)
