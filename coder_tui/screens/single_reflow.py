"""A screen that lays itself out once for requests that one layout has already answered.

Textual reflows the whole screen whenever a widget's ``Layout`` message reaches it: each widget that changed size
posts one when its own message queue goes idle, after clearing the arrangement caches of its containers. When a
screen's update comes before some of those messages have crossed its queue (a new exchange mounts a group, its input
and removes an old one; an answer mounts and shows its first words: several widgets, several queues), the full reflow
already arranges them all, caches cleared, and each late message then asks for a second full reflow that changes
nothing: in a transcript that scrolls, a repaint of all of it (measured with ``benchmarks/long_session.py``: about one
in three exchanges paid one, 6-8 ms). A ``Layout`` message made before the last full reflow began is answered by it.
"""

from __future__ import annotations

from textual import messages
from textual._time import get_time
from textual.geometry import Size
from textual.screen import Screen


class SingleReflow(Screen[None]):
    """A ``Screen`` that skips the late requests: ``class SessionScreen(SingleReflow)``."""

    # When the last full reflow began (on the clock Textual stamps messages with).
    _reflowed_at = 0.0

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        # As Textual decides: a scroll with nothing to lay out only reflows what became visible.
        if not (scroll and not self._layout_widgets) and (size or self.outer_size):
            self._reflowed_at = get_time()
        super()._refresh_layout(size, scroll)

    async def _on_layout(self, message: messages.Layout) -> None:
        if message.time < self._reflowed_at:
            message.stop()
            message.prevent_default()
            return
        await super()._on_layout(message)
