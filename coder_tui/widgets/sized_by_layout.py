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

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Static


class SizedByLayout:
    """Put first among the bases: ``class Entry(SizedByLayout, Widget)``."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False, repaint=False)


class SizedStatic(SizedByLayout, Static):
    """A ``Static`` part of a transcript entry or a tool-log row."""
