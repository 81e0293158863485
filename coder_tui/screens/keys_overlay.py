"""``?`` on an empty prompt (as in Claude Code): the keys that work at the prompt, over the session. Esc (or ``?``)
closes it; ``/help`` has every key, the dialogs' too, and the commands."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from coder_tui.input.bindings import bindings_for, help_rows
from coder_tui.widgets.table_view import Column, TableSection, TableView

# Where the keys apply, as ``help_rows`` names it, and the title each group gets here.
SHOWN_PLACES = (("input", "At the prompt"), ("session", "In the session"), ("anywhere", "Anywhere"))


def key_sections() -> list[TableSection]:
    rows = help_rows()
    return [
        TableSection(title, (Column("bold"), Column(wrap=True)),
                     tuple((keys, what) for where, keys, what in rows if where == place))
        for place, title in SHOWN_PLACES
    ]


class KeysOverlay(ModalScreen[None]):
    DEFAULT_CSS = """
    KeysOverlay { align: center middle; background: $background 60%; }
    KeysOverlay > #dialog {
        width: 100%; max-width: 110; height: auto; max-height: 100%;
        padding: 0 1; border: thick $primary; background: $surface;
    }
    KeysOverlay #title { text-style: bold; }
    KeysOverlay #keys { height: auto; }
    KeysOverlay #hint { color: $text-muted; }
    """

    BINDINGS = bindings_for("keys")

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content("Keys"), id="title")
            with VerticalScroll(id="keys"):
                yield TableView(key_sections())
            yield Static(Content("↑↓ PgUp PgDn scroll · /help: every command and key, searchable · Esc closes"), id="hint")

    def on_resize(self) -> None:
        # The list scrolls when the terminal is too short for it; the title and the hint stay in view.
        self.query_one("#keys").styles.max_height = max(self.size.height - 4, 3)

    def action_close(self) -> None:
        self.dismiss(None)
