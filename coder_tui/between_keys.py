"""Work left for after the first frame, done one step at a time in the gaps between keys.

What the first frame does without (the modules that render the engine's events, the link to the engine) is still
work, tens of milliseconds of it, due while the user may already be typing. A step runs on the app's own
thread once the screen has drawn what is pending, and only just after a key was handled (the next key is most
likely a typing interval away) or when no key has come for a while: a step short enough to fit between two keys
then delays none. In a thread instead, the same imports took the interpreter lock from each key's handling several
times over (the keys of the first second were drawn 60-150 ms late on a loaded machine).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Iterable

from textual.screen import Screen

# A key that arrived this recently has just been handled: the gap before the next one starts now.
JUST_HANDLED_S = 0.008
# No key for this long: the user is not typing.
PAUSED_S = 0.05
# How often the gap is looked for while keys come.
POLL_S = 0.003
# A step waits at most this long for a gap (keys that never stop, a key held down).
LONGEST_WAIT_S = 0.5


async def run_between_keys(screen: Screen[object], steps: Iterable[Callable[[], object]]) -> None:
    """Runs each step (awaiting what it returns, if anything) in a gap between keys. Call it once the first frame
    is drawn: keys typed before it count as a pause, and the first step waits for the next key or for a pause."""
    begun = time.monotonic()
    for step in steps:
        await _gap(screen, begun)
        result = step()
        if inspect.isawaitable(result):
            await result


async def _gap(screen: Screen[object], begun: float) -> None:
    waiting_since = time.monotonic()
    while True:
        await _idle(screen)
        now = time.monotonic()
        since_key = now - max(begun, getattr(screen.app, "last_key_at", 0.0))
        if since_key < JUST_HANDLED_S or since_key > PAUSED_S or now - waiting_since > LONGEST_WAIT_S:
            return
        await asyncio.sleep(POLL_S)


def _idle(screen: Screen[object]) -> asyncio.Future[None]:
    """Done once the screen has drawn what is pending and has no message waiting."""
    idle = asyncio.get_running_loop().create_future()
    screen.call_after_refresh(lambda: idle.done() or idle.set_result(None))
    return idle
