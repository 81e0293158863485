"""A finished stretch of Markdown as one light widget.

Textual's Markdown widget is a tree of block widgets, which is what makes streaming smooth but makes a long session
heavy: layout cost grows with every block on the screen. Once an answer (or one segment of it) is finished and a
few entries old, the transcript swaps it for this single ``Static`` rendering the same text with Rich's Markdown.
"""

from __future__ import annotations

from rich.markdown import Markdown as RichMarkdown
from textual.widgets import Static


class MarkdownSnapshot(Static):
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
        super().__init__(RichMarkdown(text, code_theme="monokai"), classes=classes)
        self.text = text
