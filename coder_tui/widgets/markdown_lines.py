"""Markdown as one light widget: rendered into lines once per width, served through Textual's line API.

Textual's Markdown widget is a tree of block widgets, and every block costs layout, styling and mounting work on
each update; in a long session that work grows with every block. The transcript instead renders Markdown here with
Rich's renderer (dressed in the app theme by ``markdown_look``) into plain segment lists: one widget whatever the
length. ``extend`` appends a chunk that starts on a block boundary, rendered on its own so earlier lines are never
rendered again (a streaming answer's finished blocks); ``replace`` swaps the whole text (its unfinished last
block). Lines are kept as segment lists rather than ``Strip`` objects, each of which carries several caches: fewer
objects for the garbage collector to walk in a long session.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from coder_tui.markdown_look import markdown_look


class MarkdownLines(Widget):
    """Rendered Markdown; ``text`` is its source."""

    DEFAULT_CSS = """
    MarkdownLines {
        height: auto;
        /* A transcript entry of its own (a resumed conversation), spaced like a streamed one. */
        &.-entry { margin: 1 0 0 0; padding: 0 1; }
        &.-reasoning {
            color: $text-muted;
            text-style: italic;
            border-left: vkey $foreground 20%;
        }
    }
    """

    def __init__(self, text: str = "", *, classes: str = "") -> None:
        super().__init__(classes=classes)
        self._chunks: list[str] = [text] if text.strip() else []
        self._width = -1
        self._lines: list[list[Segment]] = []

    @property
    def text(self) -> str:
        return "".join(self._chunks)

    def extend(self, markdown: str) -> None:
        """Appends whole blocks (``markdown`` starts on a block boundary); only they are rendered."""
        if not markdown.strip():
            return
        self._chunks.append(markdown)
        if self._width > 0:
            self._lines.extend(self._render_chunk(markdown, self._width, first=len(self._chunks) == 1))
        self.refresh(layout=True)

    def replace(self, markdown: str) -> None:
        """Shows ``markdown`` instead of everything shown so far."""
        self._chunks = [markdown] if markdown.strip() else []
        self._width = -1
        self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines_at(width))

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        lines = self._lines_at(width)
        if y < len(lines):
            return Strip(lines[y], width)
        return Strip.blank(width, self.rich_style)

    def _lines_at(self, width: int) -> list[list[Segment]]:
        if width != self._width and width > 0:
            self._lines = [
                line
                for index, chunk in enumerate(self._chunks)
                for line in self._render_chunk(chunk, width, first=index == 0)
            ]
            self._width = width
        return self._lines

    def _render_chunk(self, markdown: str, width: int, *, first: bool) -> list[list[Segment]]:
        """The chunk's lines, after the blank line that separates it from the chunk before (as between blocks)."""
        console = self.app.console
        options = console.options.update(width=width, highlight=False)
        look = markdown_look(self)
        with console.use_theme(look.theme):
            lines = console.render_lines(look.renderable(markdown), options, style=self.rich_style, pad=True)
        if not first:
            lines.insert(0, [Segment(" " * width, self.rich_style)])
        return lines
