"""How far the running input has come, as the status line shows it: the time since it started and about how many
tokens the model has streamed for it. The server's count replaces the estimate (four characters a token) as each
request ends. The estimate changes on screen when the streamed text does (``show_streamed``, at each of the
answer's rounds) and at each second's tick: each change redraws the status line and writes a frame, and a fast
model sends a delta every few milliseconds, so it goes in the frames the answer draws anyway."""

from __future__ import annotations

from collections.abc import Callable

from coder_tui.widgets.status_line import StatusLine


class InputProgress:
    def __init__(self, status: StatusLine, timer: Callable[[], float]) -> None:
        """``timer``: what the input's time is measured with, in seconds (tests fix it: snapshots show no clock)."""
        self.status = status
        self.timer = timer
        self._started = 0.0
        self._tokens_done = 0  # the completion tokens of the input's finished requests
        self._streamed_chars = 0  # what streamed since the last request ended

    def start(self) -> None:
        self._started, self._tokens_done, self._streamed_chars = self.timer(), 0, 0
        self.status.elapsed_s = self.status.streamed_tokens = 0

    def streamed(self, text: str) -> None:
        """The model streamed ``text`` (answer or reasoning) for the running input: counted, shown later."""
        self._streamed_chars += len(text)

    def show_streamed(self) -> None:
        """The streamed text changed on screen: the count changes with it."""
        self.status.streamed_tokens = self._tokens_done + self._streamed_chars // 4

    def request_used(self, completion_tokens: int) -> None:
        """A request of the running input ended; the server counted what it streamed."""
        self._tokens_done += completion_tokens
        self._streamed_chars = 0
        self.status.streamed_tokens = self._tokens_done

    def tick(self) -> None:
        """Each second while the input runs."""
        self.status.elapsed_s = int(self.timer() - self._started)
        self.show_streamed()
