"""A bare app that shows transcript widgets in a scrolling pane, on a screen that skips answered layout requests as
the session screen does (``SingleReflow``); and the lines a ``MarkdownLines`` shows."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from coder_tui.screens.single_reflow import SingleReflow
from coder_tui.widgets.markdown_lines import MarkdownLines


class Host(App[None]):
    def __init__(self, *widgets: object) -> None:
        super().__init__()
        self.widgets = widgets

    def get_default_screen(self) -> SingleReflow:
        return _PaneScreen(self.widgets)


class _PaneScreen(SingleReflow):
    def __init__(self, widgets: tuple[object, ...]) -> None:
        super().__init__()
        self.widgets = widgets

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield from self.widgets  # type: ignore[misc]


def shown_lines(widget: MarkdownLines) -> list[str]:
    return [widget.render_line(y).text.rstrip() for y in range(widget.size.height)]
