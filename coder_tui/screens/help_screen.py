"""``/help`` (SPEC 7): a screen over the session with the commands, the input rules and every key, and a search
line: typing narrows the rows to those holding every word. Esc closes it; the transcript is left as it was."""

from __future__ import annotations

from collections.abc import Sequence

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from coder_tui.input.bindings import bindings_for
from coder_tui.widgets.help_view import HelpView


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; background: $background 60%; }
    HelpScreen > #dialog {
        width: 100%; max-width: 120; height: 100%;
        padding: 0 1; border: thick $primary; background: $surface;
    }
    HelpScreen #title { text-style: bold; }
    HelpScreen Input { margin: 0 0 1 0; }
    HelpScreen #rows { height: 1fr; }
    HelpScreen #none { color: $text-muted; display: none; }
    HelpScreen #none.-shown { display: block; }
    HelpScreen #hint { color: $text-muted; }
    """

    BINDINGS = bindings_for("help")

    def __init__(self, commands: Sequence[tuple[str, str]]) -> None:
        super().__init__()
        self.commands = list(commands)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content("Help: commands, input and keys"), id="title")
            yield Input(placeholder="type to search commands and keys", compact=True, id="search")
            with VerticalScroll(id="rows", can_focus=False):
                yield HelpView(self.commands, id="help")
                yield Static(Content("nothing matches"), id="none")
            yield Static(Content("PgUp/PgDn scroll · Esc closes"), id="hint")

    def on_mount(self) -> None:
        self.query_one("#search", Input).focus()

    @on(Input.Changed, "#search")
    def _search(self, event: Input.Changed) -> None:
        shown = self.query_one(HelpView).show(event.value)
        self.query_one("#none").set_class(not shown, "-shown")
        self.query_one("#rows", VerticalScroll).scroll_home(animate=False)

    def action_scroll_rows(self, pages: int) -> None:
        rows = self.query_one("#rows", VerticalScroll)
        rows.scroll_page_down(animate=False) if pages > 0 else rows.scroll_page_up(animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
