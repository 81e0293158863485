"""Fan-out of engine events to every subscriber (the TUI, headless output, tests)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from engine.events import Event

Subscriber = Callable[[Event], None]

log = logging.getLogger(__name__)


class EventBus:
    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        self._subscribers.append(subscriber)

        def unsubscribe() -> None:
            if subscriber in self._subscribers:
                self._subscribers.remove(subscriber)

        return unsubscribe

    def emit(self, event: Event) -> None:
        for subscriber in list(self._subscribers):
            try:
                subscriber(event)
            except Exception:  # a broken front end must not break the turn; the log keeps the traceback
                log.exception("event subscriber failed on %s", type(event).__name__)
