"""A finished stretch of Markdown as one light widget.

Textual's Markdown widget is a tree of block widgets, which is what makes streaming smooth but makes a long session
heavy: layout cost grows with every block on the screen. Once an answer (or one segment of it) is finished and no
longer the newest entry, the transcript swaps it for this widget: the same text rendered once with Rich's Markdown
into lines, kept per width, and served line by line (Textual's line API), so layout and scrolling cost nothing.
"""

from __future__ import annotations

from rich.markdown import Markdown as RichMarkdown
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget


class MarkdownSnapshot(Widget):
    """Rendered Markdown that never changes; ``text`` is its source."""

    DEFAULT_CSS = """
    MarkdownSnapshot {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        &.-continued { margin-top: 0; }
        &.-reasoning {
            color: $text-muted;
            text-style: italic;
            border-left: vkey $foreground 20%;
        }
    }
    """

    def __init__(self, text: str, *, classes: str = "") -> None:
        super().__init__(classes=classes)
        self.text = text
        self._width = -1
        self._lines: list[Strip] = []

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines_at(width))

    def render_line(self, y: int) -> Strip:
        lines = self._lines_at(self.content_size.width)
        return lines[y] if y < len(lines) else Strip.blank(self.content_size.width, self.rich_style)

    def _lines_at(self, width: int) -> list[Strip]:
        if width != self._width and width > 0:
            console = self.app.console
            options = console.options.update(width=width, highlight=False)
            rendered = console.render_lines(
                RichMarkdown(self.text, code_theme="monokai"), options, style=self.rich_style, pad=True
            )
            self._lines = [Strip(line, width) for line in rendered]
            self._width = width
        return self._lines
