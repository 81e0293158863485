"""When Python's cycle collector does its full passes: at quiet moments, not while a task streams.

A full (generation 2) collection walks every tracked object: with the app, the engine, the model SDK and a resumed
session loaded that is a few hundred thousand objects, and 30-150 ms during which no key is drawn; left alone, a
streamed answer triggers one every second or so. So:

- at quiet moments (the engine loaded, a resumed conversation shown, an input finished) the app collects, then
  freezes what survived (``gc.freeze``): the survivors are long-lived (modules, the conversation, the mounted
  transcript) and later collections never walk them again;
- while an input runs, automatic full collections wait (the young generations are still collected, which is where
  most garbage cycles die), and they go on waiting after it ends until the next quiet moment, which collects what
  waited: switched back on at the end of a long answer, the first full pass came at once, right when the user reads
  and types (a 60-80 ms stall in the pty benchmark's "finish" figure).

Frozen objects are still freed by reference counting; only a frozen object that later ends up in a garbage cycle (a
pruned transcript entry, say) would linger, so every ``FULL_EVERY`` quiet moments everything is unfrozen and
collected once.
"""

from __future__ import annotations

import gc

FULL_EVERY = 20
# With this many young-generation passes between full ones, a full pass never comes during an input.
_DEFERRED = 1_000_000


class CollectionPacer:
    """``busy()`` when an input starts and ``idle()`` when it ends; ``quiet()`` at a moment with nothing urgent to
    do, best after a repaint (it is skipped while an input runs); ``close()`` when the app exits."""

    def __init__(self, full_every: int = FULL_EVERY) -> None:
        self._full_every = full_every
        self._quiet_moments = 0
        self._thresholds: tuple[int, int, int] | None = None
        self._running = False

    def busy(self) -> None:
        self._running = True
        if self._thresholds is None:
            self._thresholds = gc.get_threshold()
            young, middle, _ = self._thresholds
            gc.set_threshold(young, middle, _DEFERRED)

    def idle(self) -> None:
        """The input ended: full collections still wait, for the next quiet moment."""
        self._running = False

    def close(self) -> None:
        """Automatic full collections as they were."""
        self._running = False
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None

    def settle(self) -> None:
        """Freezes what exists now without collecting (a moment, not a pass over every object): at start-up, the
        imported modules and the mounted app live as long as the process, and automatic full collections would
        otherwise walk them again and again while the user types. The next ``quiet`` collects what is garbage.
        Collection is switched back on if start-up had it off (``coder_tui.cli``)."""
        gc.freeze()
        gc.enable()

    def quiet(self) -> None:
        if self._running:
            return  # an input started meanwhile: its end is the next quiet moment
        self._quiet_moments += 1
        if self._quiet_moments % self._full_every == 0:
            gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.close()
