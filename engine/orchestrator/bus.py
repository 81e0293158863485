"""Fan-out of engine events to every subscriber (the TUI, headless output, tests). Each event is published with the
id of the session it belongs to (None for the engine's own); a tagged subscriber receives it with the event."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from engine.events import Event

Subscriber = Callable[[Event], None]
TaggedSubscriber = Callable[[Event, str | None], None]

log = logging.getLogger(__name__)


class EventBus:
    def __init__(self) -> None:
        self._subscribers: list[Subscriber] = []
        self._tagged: list[TaggedSubscriber] = []

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        return self._add(self._subscribers, subscriber)

    def subscribe_tagged(self, subscriber: TaggedSubscriber) -> Callable[[], None]:
        return self._add(self._tagged, subscriber)

    @staticmethod
    def _add(subscribers: list[Any], subscriber: Any) -> Callable[[], None]:
        subscribers.append(subscriber)

        def unsubscribe() -> None:
            if subscriber in subscribers:
                subscribers.remove(subscriber)

        return unsubscribe

    def emit(self, event: Event, session_id: str | None = None) -> None:
        for subscriber in list(self._subscribers):
            try:
                subscriber(event)
            except Exception:  # a broken front end must not break the turn; the log keeps the traceback
                log.exception("event subscriber failed on %s", type(event).__name__)
        for tagged in list(self._tagged):
            try:
                tagged(event, session_id)
            except Exception:
                log.exception("event subscriber failed on %s", type(event).__name__)
