"""Work the engine does for later (loading the token encoding, reading the skill folders) runs in a thread of its
own at a lower CPU priority. On a machine with few cores it competes with the terminal UI drawing the keys a user
types (the engine loads while the user starts typing), and the UI should win; the work still runs at full speed on
an idle core. Only that thread is lowered: the engine's own loop, and the commands it runs, keep their priority.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

# Added to the thread's nice value (Linux, where a thread's priority is its own).
BACKGROUND_NICENESS = 10


async def in_background_thread(work: Callable[[], T]) -> T:
    """Runs ``work`` in a new thread at a lower priority and returns its result (or raises its exception). A
    cancelled caller stops waiting; the thread finishes its work on its own, as with ``asyncio.to_thread``."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)  # type: ignore[arg-type]

    def run() -> None:
        lower_this_threads_priority()
        try:
            result, error = work(), None
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task
            result, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits any more
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name="coder-background", daemon=True).start()
    return await done


def lower_this_threads_priority() -> None:
    """Raises the calling thread's nice value by ``BACKGROUND_NICENESS`` (on Linux only: elsewhere the call would
    name a process, not a thread)."""
    if sys.platform != "linux":
        return
    thread = threading.get_native_id()
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, thread, os.getpriority(os.PRIO_PROCESS, thread) + BACKGROUND_NICENESS)
