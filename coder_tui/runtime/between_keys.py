"""Work left for after the first frame, done one step at a time in the gaps between keys.

What the first frame does without (the modules that render the engine's events, the link to the engine) is still
work, tens of milliseconds of it, due while the user may already be typing. A step runs on the app's own
thread once the screen has drawn what is pending, and only just after the frame that showed the last key (the next
key is most likely a typing interval away) or when no key has come for a while: a step short enough to fit between
two keys then delays none. A key that has arrived but is not drawn yet holds the steps back: run before its
handling, a step would delay that very key (the app stamps ``last_key_at`` as a key arrives, from the terminal's
input thread, and ``last_frame_at`` as it writes a frame). A step too long for any gap (``WhenPaused``) waits for
the user to pause. In a thread instead, the same imports took the interpreter lock from each key's handling several
times over (the keys of the first second were drawn 60-150 ms late on a loaded machine).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Iterable

from textual.screen import Screen

# A key drawn this recently has just been handled: the gap before the next one starts now.
JUST_HANDLED_S = 0.008
# No key for this long: the user is not typing.
PAUSED_S = 0.05
# No key for this long: the user has stopped typing, and a step too long for a gap (``WhenPaused``) may run. Longer
# than any interval of a typist at speed (40-200 ms): at 50 ms, a late key in a run typed 40 ms apart let the
# footer's keys (30-55 ms of work) start between two keys, and the next key waited for them (the pty benchmark's
# worst key of the first seconds, 50-55 ms in three rounds of five).
STOPPED_TYPING_S = 0.3
# How often the gap is looked for while keys come.
POLL_S = 0.003
# A step waits at most this long for a gap (keys that never stop, a key held down).
LONGEST_WAIT_S = 0.5


class WhenPaused:
    """A step too long for the gap between two keys (tens of milliseconds in one piece, nothing waiting on it):
    it runs only once the user pauses, however long they type."""

    def __init__(self, step: Callable[[], object]) -> None:
        self.step = step

    def __call__(self) -> object:
        return self.step()


async def run_between_keys(screen: Screen[object], steps: Iterable[Callable[[], object]]) -> None:
    """Runs each step (awaiting what it returns, if anything) in a gap between keys. Call it once the first frame
    is drawn: keys typed before it count as a pause, and the first step waits for the next key or for a pause."""
    begun = time.monotonic()
    for step in steps:
        await _gap(screen, begun, paused_only=isinstance(step, WhenPaused))
        result = step()
        if inspect.isawaitable(result):
            await result


async def _gap(screen: Screen[object], begun: float, *, paused_only: bool = False) -> None:
    waiting_since = time.monotonic()
    while True:
        await _idle(screen)
        now = time.monotonic()
        arrived = getattr(screen.app, "last_key_at", 0.0)
        key = max(begun, arrived)
        # When the last key was drawn (before any key, the start; in an app that does not stamp its frames, the key's
        # arrival): earlier than the key while it waits to be drawn.
        drawn = getattr(screen.app, "last_frame_at", key) if arrived > begun else key
        just_drawn = drawn >= key and now - drawn < JUST_HANDLED_S
        pause = STOPPED_TYPING_S if paused_only else PAUSED_S
        if now - key > pause or not paused_only and (just_drawn or now - waiting_since > LONGEST_WAIT_S):
            return
        await asyncio.sleep(POLL_S)


def _idle(screen: Screen[object]) -> asyncio.Future[None]:
    """Done once the screen has drawn what is pending and has no message waiting."""
    idle = asyncio.get_running_loop().create_future()
    screen.call_after_refresh(lambda: idle.done() or idle.set_result(None))
    return idle
