"""The prompt line: the mode, in the mode's own colour, and the working directory."""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from coder_tui.transcript.mode_look import mode_badge


class PromptLine(Widget):
    """``▶ default  ~/src/project``; the mode updates the instant the engine reports a change."""

    DEFAULT_CSS = """
    PromptLine {
        height: 1;
        padding: 0 1;
    }
    """

    mode: reactive[str] = reactive("default")
    location: reactive[str] = reactive("")

    def render(self) -> Content:
        return Content.assemble(mode_badge(self.mode), "  ", (self.location, "$text-muted"))
