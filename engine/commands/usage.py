"""What the server counted for this run's requests (``/cost``). The tally listens to the session's own events
(``UsageUpdated`` with the server's counts; a sub-agent's arrive wrapped in ``SubagentEvent`` and count too), so it
needs nothing from the turn."""

from __future__ import annotations

from engine.events import Event, SubagentEvent, UsageUpdated


class UsageTally:
    """Subscribe it to the session's events; it sums what the server reported."""

    def __init__(self) -> None:
        self.requests = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cached_tokens = 0  # of the prompt tokens, those read from the server's prompt cache

    def __call__(self, event: Event) -> None:
        while isinstance(event, SubagentEvent):
            event = event.event
        if isinstance(event, UsageUpdated) and (event.prompt_tokens or event.completion_tokens):
            self.requests += 1
            self.prompt_tokens += event.prompt_tokens
            self.completion_tokens += event.completion_tokens
            self.cached_tokens += event.cached_tokens
