"""A modal dialog's box: as tall as its content and never taller than the room its screen gives it.

Textual does not shrink the children of an auto-height container that reaches its ``max-height``: the last ones
(the reasons, the choices) would be pushed out of sight. So one child marked ``-flexible`` (a scroll area: the diff,
a list of options) is given, after each layout, a ``max-height`` of the rows the other children leave (at most its
CSS ``max-height``); it scrolls inside them and everything else stays on screen.
"""

from __future__ import annotations

from textual.containers import Vertical
from textual.widget import Widget

# The flexible part never shrinks below this, so a diff keeps a readable window even on a tiny terminal.
MIN_FLEXIBLE_ROWS = 3


class DialogBox(Vertical):
    """The dialog's frame. Its screen calls ``fit`` when it is resized; the box itself refits after its own
    layout changes."""

    DEFAULT_CSS = """
    DialogBox {
        height: auto;
        max-height: 100%;
    }
    """

    def on_resize(self) -> None:
        self.call_after_refresh(self.fit)

    def fit(self) -> None:
        """Gives the ``-flexible`` child the rows the screen has left once the other children are placed."""
        flexible = next((child for child in self.children if child.has_class("-flexible")), None)
        if flexible is None or not self.children or not self.region:
            return
        room = self._room() - self.styles.gutter.height - self._height_of_the_rest(flexible)
        rows = max(room, MIN_FLEXIBLE_ROWS)
        cap = flexible.styles.base.max_height  # the CSS's own limit holds where the screen has more room
        if cap is not None and cap.is_cells:
            rows = min(rows, int(cap.value))
        if flexible.styles.max_height is None or flexible.styles.max_height.value != rows:
            flexible.styles.max_height = rows

    def _room(self) -> int:
        """The rows the box may take: its parent's height less what is docked there (the footer)."""
        parent = self.parent
        if not isinstance(parent, Widget):
            return self.region.height
        docked = sum(
            child.outer_size.height
            for child in parent.children
            if child.styles.dock in ("top", "bottom") and child.display
        )
        return parent.size.height - docked

    def _height_of_the_rest(self, flexible: Widget) -> int:
        """The content rows everything but ``flexible`` takes, margins included, as laid out right now."""
        shown = [child for child in self.children if child.display]
        first, last = shown[0], shown[-1]
        top = first.region.y - first.styles.margin.top
        bottom = last.region.bottom + last.styles.margin.bottom
        return bottom - top - flexible.outer_size.height
