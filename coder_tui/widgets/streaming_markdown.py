"""Markdown that grows while the model streams, fed synchronously by the engine's events.

The engine calls back on every delta; a worker drains what arrived into ``Markdown.get_stream()`` at most a few
times a second (each append re-lays out and repaints what is on screen), so a fast model never queues up work on
the event loop and typing stays responsive. Toad's ``AgentResponse`` is the model for this.
"""

from __future__ import annotations

import asyncio

from textual import work
from textual.message import Message
from textual.widgets import Markdown

# How often, at most, new text is handed to the Markdown widget while streaming.
APPEND_INTERVAL_S = 0.2


class StreamingMarkdown(Markdown):
    """A Markdown widget with ``feed(fragment)`` and ``finish()``; ``text`` is everything fed so far."""

    DEFAULT_CSS = """
    StreamingMarkdown {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        background: transparent;
        &.-continued { margin-top: 0; }
    }
    """

    class Settled(Message):
        """The stream is finished and rendered; the widget will not change again."""

    def __init__(self, *, classes: str = "") -> None:
        super().__init__(classes=classes)
        self._pending: list[str] = []
        self._fed: list[str] = []
        self._wake = asyncio.Event()
        self._finished = False
        self._settled = False

    @property
    def text(self) -> str:
        """All the text fed so far (rendered or still pending)."""
        return "".join(self._fed)

    @property
    def is_streaming(self) -> bool:
        return not self._finished

    @property
    def is_settled(self) -> bool:
        """Finished and fully rendered: nothing will change it any more."""
        return self._settled

    def feed(self, fragment: str) -> None:
        """Adds a fragment; safe to call many times a second and before the widget is mounted."""
        if self._finished or not fragment:
            return
        self._fed.append(fragment)
        self._pending.append(fragment)
        self._wake.set()

    def finish(self) -> None:
        """No more fragments: the worker renders what is pending and stops."""
        self._finished = True
        self._wake.set()

    def on_mount(self) -> None:
        self._pump()

    @work(group="markdown-stream")
    async def _pump(self) -> None:
        stream = Markdown.get_stream(self)
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                if self._pending:
                    chunk = "".join(self._pending)
                    self._pending.clear()
                    await stream.write(chunk)
                if self._finished and not self._pending:
                    break
                # A few appends a second read as live and leave the loop free for typing, however fast the model.
                await asyncio.sleep(APPEND_INTERVAL_S)
        finally:
            await stream.stop()
            self._settled = True
            self.post_message(self.Settled())
