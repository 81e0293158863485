"""Mounting a batch of widgets with the screen's updates held until all of them are mounted.

Textual mounts widgets over several turns of the event loop (each widget composes and mounts its children in its own
message pump), and the screen lays itself out and draws whenever it is idle in between: mounting a resumed
conversation's entries cost three or four full layouts of the screen, and the first frames showed none of the entries
(a widget not mounted yet is measured but not drawn). Held, the batch is laid out and drawn once, with everything in
it. Keys typed meanwhile are handled as ever; they are drawn with that frame.

The same holds for any change made of mounts and removals (``hold_while``): a new exchange in the transcript is a
group mounted, its input mounted in it and an old exchange removed, and each of the three, done, asked for a layout
of its own, often after the screen had laid out the others (a full repaint of a scrolling transcript, three times).

And a change can wait a moment for the one that follows it (``hold_for_next``): a request's echo for its answer's
first entry. A fast answer (a local model, a cached reply, a slash command) comes a few milliseconds after its echo;
drawn apart, the two were two frames, each a repaint of the whole scrolling transcript, and the answer waited for the
echo's. Held for at most a frame's time, they are one.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from textual.widget import Widget

if TYPE_CHECKING:
    from textual.app import App

# The longest the screen is held, should a widget never finish mounting (removed before it did, say).
MAX_HOLD_S = 0.5

# The waiting tasks, held until they are done (the event loop keeps only weak references to its tasks).
_waiting: set[asyncio.Task[None]] = set()

# For each app, how to end the hold ``hold_for_next`` began, while it lasts.
_lingering: weakref.WeakKeyDictionary[App[object], Callable[[], None]] = weakref.WeakKeyDictionary()


def mount_held(parent: Widget, widgets: Sequence[Widget], *, before: int | Widget | None = None) -> asyncio.Future[None]:
    """Mounts ``widgets`` in ``parent`` (``before`` as in ``Widget.mount_all``) and holds the screen's updates until
    they are mounted. The result is done once the frame that shows them is drawn (or the hold gave up)."""
    return hold_while(parent, lambda: [parent.mount_all(widgets, before=before)])


def hold_while(parent: Widget, change: Callable[[], Sequence[Awaitable[object]]]) -> asyncio.Future[None]:
    """Makes ``change`` (mounts and removals anywhere on the screen, whose awaitables it returns) with the screen's
    updates held until all of them are done; then ``parent`` is laid out. The result is done once the frame that
    shows the change is drawn (or the hold gave up)."""
    app = parent.app
    loop = asyncio.get_running_loop()
    drawn: asyncio.Future[None] = loop.create_future()
    # Textual's own batch (``App.batch_update``), begun now: the screen may lay out on the next turn of the loop.
    app._begin_batch()
    held = True
    end_lingering(app)  # this change is the one a lingering hold waited for: drawn with it

    def release() -> None:
        nonlocal held
        if not held:
            return
        held = False
        give_up.cancel()
        app._end_batch()
        # Something to lay out and draw (the change), and what runs once that frame is drawn.
        parent.refresh(layout=True)
        if not parent.call_after_refresh(lambda: drawn.done() or drawn.set_result(None)):
            drawn.set_result(None)  # the parent is gone: nothing will be drawn

    give_up = loop.call_later(MAX_HOLD_S, release)
    try:
        pending = list(change())
    except BaseException:
        release()
        raise

    async def release_when_done() -> None:
        try:
            for awaitable in pending:
                await awaitable
        finally:
            release()

    task = loop.create_task(release_when_done())
    _waiting.add(task)
    task.add_done_callback(_waiting.discard)
    return drawn


def hold_for_next(parent: Widget, seconds: float) -> None:
    """Holds the screen's updates until the next ``hold_while`` change begins (and then until that change is done,
    as ever), or for ``seconds`` at most: a change made now is drawn with the one after it, if that comes quickly."""
    app = parent.app
    end_lingering(app)
    app._begin_batch()

    def end() -> None:
        if _lingering.get(app) is end:
            del _lingering[app]
            give_up.cancel()
            app._end_batch()
            parent.refresh(layout=True)  # the screen may have gone idle meanwhile: it looks again

    give_up = asyncio.get_running_loop().call_later(seconds, end)
    _lingering[app] = end


def end_lingering(app: App[object]) -> None:
    """Ends the hold ``hold_for_next`` began, if one lasts (an input ended, say: nothing more to wait for)."""
    end = _lingering.get(app)
    if end is not None:
        end()
