"""Ending on a signal (SPEC 21): SIGTERM and SIGHUP end like SIGINT. The running input is cancelled, which kills
the bash tool's process group and marks the open call interrupted; the front end then closes the orchestrator
(everything is already saved message by message) and exits with 128 + the signal's number: 130, 143, 129.

One function for every front end that owns an orchestrator's loop (headless mode, the engine process); the TUI,
whose engine runs in another process, uses it to end the app and so that engine. Imports nothing heavy.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterable
from typing import Protocol

ENDING_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Cancellable(Protocol):
    """What a signal stops: the orchestrator's running input."""

    def cancel(self) -> bool: ...


class EndingSignals:
    """What ``install_ending_signals`` caught. ``received`` is the first ending signal, None until one arrives."""

    def __init__(self, loop: asyncio.AbstractEventLoop, installed: Iterable[signal.Signals]) -> None:
        self._loop = loop
        self._installed = tuple(installed)
        self.received: signal.Signals | None = None

    def exit_code(self, default: int) -> int:
        """128 + the signal's number once one was received (the shell's convention), else ``default``."""
        return 128 + int(self.received) if self.received is not None else default

    def remove(self) -> None:
        for signum in self._installed:
            with contextlib.suppress(ValueError, RuntimeError):
                self._loop.remove_signal_handler(signum)


def install_ending_signals(
    orchestrator: Cancellable | Callable[[], Cancellable | None],
    loop: asyncio.AbstractEventLoop,
    *,
    signals: Iterable[signal.Signals] = ENDING_SIGNALS,
    on_signal: Callable[[signal.Signals], None] | None = None,
) -> EndingSignals:
    """Each of ``signals`` cancels the orchestrator's running input; ``on_signal`` is then called, where the front
    end stops taking new input (a queue, a read loop). ``orchestrator`` may be a callable returning the current one
    (an engine that is still starting has none yet). Where the loop cannot take signal handlers (not the main
    thread, Windows), nothing is installed."""
    installed: list[signal.Signals] = []
    caught = EndingSignals(loop, installed)

    def handle(signum: signal.Signals) -> None:
        if caught.received is None or signum is not signal.SIGINT:
            caught.received = signum  # a later SIGTERM after Ctrl+C still ends as SIGTERM
        current = orchestrator() if callable(orchestrator) else orchestrator
        if current is not None:
            current.cancel()
        if on_signal is not None:
            on_signal(signum)

    for signum in signals:
        try:
            loop.add_signal_handler(signum, handle, signum)
        except (NotImplementedError, RuntimeError, ValueError):
            continue
        installed.append(signum)
    return caught
