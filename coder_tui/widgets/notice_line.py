"""A one-line fact in the transcript: "interrupted", an error, a warning, a compaction, a queued input starting."""

from __future__ import annotations

from typing import Literal

from textual.content import Content
from textual.widgets import Static

from coder_tui.widgets.sized_by_layout import SizedByLayout

NoticeLevel = Literal["info", "warning", "error", "interrupted"]

_GLYPHS: dict[NoticeLevel, str] = {"info": "ℹ", "warning": "⚠", "error": "✗", "interrupted": "■"}


class NoticeLine(SizedByLayout, Static):
    """A short notice, styled by its level (CSS classes ``-info``, ``-warning``, ``-error``, ``-interrupted``)."""

    DEFAULT_CSS = """
    NoticeLine {
        height: auto;
        padding: 0 1;
        margin: 1 0 0 0;
        color: $text-muted;
        &.-warning { color: $text-warning; }
        &.-error { color: $text-error; }
        &.-interrupted { color: $text-warning; text-style: bold; }
    }
    """

    def __init__(self, text: str, level: NoticeLevel = "info") -> None:
        super().__init__(Content(f"{_GLYPHS[level]} {text}"), classes=f"-{level}")
        self.text = text
        self.level = level
