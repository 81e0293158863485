"""The bottom line: the mode beside Textual's footer of bindings."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Footer

from coder_tui.mode_look import mode_badge


class ModeHint(Widget):
    """``▶ default``: the footer says which mode is on (the Shift+Tab binding beside it says how to change it)."""

    DEFAULT_CSS = """
    ModeHint {
        width: auto;
        height: 1;
        padding: 0 1;
        background: $footer-background;
    }
    """

    mode: reactive[str] = reactive("default", layout=True)

    def render(self) -> Content:
        return mode_badge(self.mode)


class FooterBar(Horizontal):
    """Docked at the bottom; ``mode`` is forwarded to the hint, bindings come from the focused widget chain."""

    DEFAULT_CSS = """
    FooterBar {
        dock: bottom;
        height: 1;
        background: $footer-background;
        & > Footer { dock: none; width: 1fr; }
    }
    """

    mode: reactive[str] = reactive("default")

    def compose(self) -> ComposeResult:
        yield ModeHint().data_bind(FooterBar.mode)
        yield Footer(show_command_palette=False)
