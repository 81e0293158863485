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

A quiet moment waits for the keys to rest (no key for a second): even the pass over what is young is a pause, and
after a long answer it is a long one (100 ms, measured by ``pty_latency.py``'s "finish" figure). But not for ever:
a user who types the next request while the answer is read never stops for a second, and while no pass ran every
pruned exchange stayed in memory (issue 32: the UI grew 0.25 MB an exchange, 315 MB after 1,000). A quiet moment
the keys did not give is ``owed``: it runs at the first moment the keys rest, or at the start of the next input
(the user has just sent it and waits for the model), whichever comes first.
"""

from __future__ import annotations

import gc

FULL_EVERY = 20
# With this many young-generation passes between full ones, a full pass never comes during an input.
_DEFERRED = 1_000_000


class CollectionPacer:
    """``busy()`` when an input starts and ``idle()`` when it ends; ``quiet()`` at a moment with nothing urgent to
    do, best after a repaint (it is skipped while an input runs); ``catch_up()`` when an input starts, for a pass
    that is ``owed``; ``close()`` when the app exits."""

    def __init__(self, full_every: int = FULL_EVERY) -> None:
        self._full_every = full_every
        self._since_full = 0
        self._owed = False
        self._thresholds: tuple[int, int, int] | None = None
        self._running = False

    @property
    def owed(self) -> bool:
        """A quiet moment found the keys busy, and no pass has run since."""
        return self._owed

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

    def quiet(self, keys_idle: bool = True) -> None:
        """Collects what is young and freezes what survived (every ``full_every`` times, everything); with the
        keys busy, nothing yet: the pass is ``owed``."""
        if self._running:
            return  # an input started meanwhile: its end is the next quiet moment
        if not keys_idle:
            self._owed = True
            return
        self._pass()
        self.close()

    def catch_up(self) -> None:
        """At an input's start: the pass a quiet moment owed, if no later one ran it."""
        if self._owed:
            self._pass()

    def _pass(self) -> None:
        self._owed = False
        self._since_full += 1
        if self._since_full >= self._full_every:
            self._since_full = 0
            gc.unfreeze()
        gc.collect()
        gc.freeze()
