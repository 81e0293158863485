"""A mixin for transcript widgets whose size only their parent's layout decides.

Textual's ``virtual_size`` is a reactive that asks for a layout when it changes, and the layout itself sets it: so
every layout that resizes a widget is followed by a second, full one (of the whole screen) that changes nothing.
While an answer streams, its widgets and every container around them grow on each round, and that second pass
doubled the round's cost (and a repaint alone would still draw the whole transcript a second time). For these
widgets a new virtual size asks for nothing: the layout that set it has just placed and drawn them. Scroll containers
still lay out again when a scrollbar appears or goes (``show_vertical_scrollbar`` asks for that itself), and
anchoring to the bottom happens inside the layout.

The same holds for every widget a transcript entry or a tool-log row is made of: a resumed session mounts a screenful
of them at once, and each one's first virtual size would ask for a second layout of the whole transcript (or log).
"""

from __future__ import annotations

from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static


class SizedByLayout:
    """Put first among the bases: ``class Entry(SizedByLayout, Widget)``."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)


class SizedStatic(SizedByLayout, Static):
    """A ``Static`` part of a transcript entry or a tool-log row."""


class UniformLines:
    """For a container whose every line is drawn alike (its children cover the rest): no border, no vertical
    padding, no keylines. Put before the widget class: ``class Entry(SizedByLayout, UniformLines, Vertical)`` (not a
    ``Widget`` itself, so that the widget class's CSS still applies).

    A widget that grows is drawn again wholly: its styled lines are forgotten at every change of size, and each line
    on screen is styled again (a streamed answer and its exchange grow at every round, and fill the screen). Here
    one line is styled, and shown on every row: the same strips, for a fraction of the cost."""

    def render_lines(self, crop: Region) -> list[Strip]:
        assert isinstance(self, Widget)
        styles = self.styles
        if (crop.height <= 1 or styles.padding.top or styles.padding.bottom or styles.keyline[0] != "none"
                or styles.border.top[0] not in ("", "none") or styles.border.bottom[0] not in ("", "none")):
            return super().render_lines(crop)  # type: ignore[misc]
        return super().render_lines(Region(crop.x, crop.y, crop.width, 1)) * crop.height  # type: ignore[misc]
