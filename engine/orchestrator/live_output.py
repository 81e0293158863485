"""What a running call prints, as it comes (SPEC 15): sent to the front ends as ``ToolCallOutput`` events and kept
for a call the user interrupts, whose partial output is shown and sent to the model with the interruption.

Events are coalesced: a command printing a line a millisecond would otherwise send a thousand events a second
through the protocol to every front end. Text waits at most ``FLUSH_S``; if more than ``MAX_PENDING`` characters
wait, the oldest are dropped from the event (a front end shows the last lines; the kept output still has the head
and the tail, capped as the tool's own result is).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Literal, cast

from engine.events import Event, ToolCallOutput
from engine.tools.bash import CappedOutput

FLUSH_S = 0.1
MAX_PENDING = 16_000

Stream = Literal["stdout", "stderr"]


class LiveOutput:
    """One call's output: ``feed`` is the tool's ``on_output``; ``flush`` before the call's last event."""

    def __init__(self, call_id: str, emit: Callable[[Event], None], cap: int) -> None:
        self._call_id = call_id
        self._emit = emit
        self._kept = {"stdout": CappedOutput(cap), "stderr": CappedOutput(cap)}
        # Consecutive text of one stream is merged: [stream, text, characters dropped before it].
        self._pending: list[tuple[Stream, str, int]] = []
        self._pending_size = 0
        self._timer: asyncio.TimerHandle | None = None

    def feed(self, stream: str, text: str) -> None:
        name = cast(Stream, "stderr" if stream == "stderr" else "stdout")
        self._kept[name].feed(text.encode())
        if self._pending and self._pending[-1][0] == name:
            _, before, skipped = self._pending[-1]
            self._pending[-1] = (name, before + text, skipped)
        else:
            self._pending.append((name, text, 0))
        self._pending_size += len(text)
        if self._pending_size > MAX_PENDING:
            self._drop_oldest()
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(FLUSH_S, self.flush)

    def flush(self) -> None:
        """Sends what waits, at once."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        pending, self._pending, self._pending_size = self._pending, [], 0
        for stream, text, skipped in pending:
            self._emit(ToolCallOutput(self._call_id, stream, text, skipped))

    def so_far(self) -> str:
        """The output kept so far, as the model reads a command's streams ("" when it printed nothing)."""
        parts = [(name, output.text()) for name, output in self._kept.items()]
        return "\n".join(f"{name}:\n{text}" for name, text in parts if text)

    def _drop_oldest(self) -> None:
        excess = self._pending_size - MAX_PENDING
        while excess > 0 and self._pending:
            stream, text, skipped = self._pending[0]
            if len(text) > excess:
                self._pending[0] = (stream, text[excess:], skipped + excess)
                self._pending_size -= excess
                return
            self._pending.pop(0)
            self._pending_size -= len(text)
            excess -= len(text)
            if self._pending:
                next_stream, next_text, next_skipped = self._pending[0]
                self._pending[0] = (next_stream, next_text, next_skipped + skipped + len(text))
