"""Work for later runs in a thread of lower priority (engine.background), so it yields the CPU to the UI's keys."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading

import pytest

from engine.background import BACKGROUND_NICENESS, in_background_thread

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="a thread's own priority is Linux's")


def own_niceness() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


@linux_only
async def test_the_work_runs_at_a_lower_priority_and_the_loop_keeps_its_own() -> None:
    before = own_niceness()
    inside = await in_background_thread(own_niceness)
    assert inside == min(before + BACKGROUND_NICENESS, 19)
    assert own_niceness() == before
    # A command the engine starts afterwards keeps the normal priority.
    started = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpriority(os.PRIO_PROCESS, 0))"],
        capture_output=True, text=True, check=True,
    )
    assert int(started.stdout) == before


async def test_the_works_result_and_its_error_reach_the_caller() -> None:
    assert await in_background_thread(lambda: 6 * 7) == 42

    def failing() -> None:
        raise ValueError("no encoding here")

    with pytest.raises(ValueError, match="no encoding here"):
        await in_background_thread(failing)


async def test_a_cancelled_caller_stops_waiting() -> None:
    release = threading.Event()
    waiting = asyncio.ensure_future(in_background_thread(lambda: release.wait(10)))
    await asyncio.sleep(0.01)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    release.set()
