"""Inputs submitted while a task runs: queued, visible, and run next in order (SPEC 15)."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widgets import Static

from coder_tui.transcript.formatting import one_line

# The queue view never grows past a few lines; the count says how many more wait.
SHOWN_ITEMS = 3


def queue_content(items: Sequence[str], width: int) -> Content:
    lines = [Content.styled(f"queued ({len(items)}) — runs when the current task ends", "bold $text-warning")]
    for index, item in enumerate(items[:SHOWN_ITEMS], start=1):
        lines.append(Content.assemble((f" {index}. ", "$text-muted"), one_line(item, max(width - 6, 10))))
    if len(items) > SHOWN_ITEMS:
        lines.append(Content.styled(f" … {len(items) - SHOWN_ITEMS} more", "$text-muted"))
    return Content("\n").join(lines)


class QueueView(Static):
    """Hidden while the queue is empty."""

    DEFAULT_CSS = """
    QueueView {
        height: auto;
        padding: 0 1;
        display: none;
        &.-visible { display: block; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: tuple[str, ...] = ()

    def set_items(self, items: Sequence[str]) -> None:
        self.items = tuple(items)
        self.set_class(bool(self.items), "-visible")
        if self.items:
            self.update(queue_content(self.items, self.size.width or 80))
