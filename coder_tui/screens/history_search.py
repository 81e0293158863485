"""Ctrl+R (SPEC 23): incremental search of the input history, like a shell's reverse search. Typing narrows the
list (newest first, every word must appear); Enter puts the highlighted input in the prompt; Esc leaves and
nothing changes."""

from __future__ import annotations

from collections.abc import Sequence

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from coder_tui.input.bindings import bindings_for
from coder_tui.transcript.formatting import one_line

MAX_SHOWN = 50


def matching(entries: Sequence[str], query: str) -> list[str]:
    """The distinct entries holding every word of ``query`` (any case), newest first."""
    words = query.lower().split()
    seen: set[str] = set()
    found: list[str] = []
    for entry in reversed(entries):
        if entry in seen:
            continue
        seen.add(entry)
        lowered = entry.lower()
        if all(word in lowered for word in words):
            found.append(entry)
            if len(found) == MAX_SHOWN:
                break
    return found


class HistorySearchScreen(ModalScreen[str | None]):
    """Dismissed with the chosen input, or None."""

    DEFAULT_CSS = """
    HistorySearchScreen {
        align: center bottom;
        background: $background 40%;
    }
    HistorySearchScreen > #dialog {
        width: 100%;
        height: auto;
        max-height: 80%;
        padding: 0 1;
        border-top: thick $primary;
        background: $surface;
    }
    HistorySearchScreen #title { text-style: bold; }
    HistorySearchScreen OptionList { height: auto; max-height: 12; }
    HistorySearchScreen #empty { color: $text-muted; }
    """

    BINDINGS = bindings_for("history")

    def __init__(self, entries: Sequence[str], query: str = "") -> None:
        super().__init__()
        self.entries = list(entries)
        self.query_text = query
        self.found: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content("Search the input history (Enter picks · Esc leaves)"), id="title")
            yield Input(self.query_text, placeholder="type to search", id="query")
            yield OptionList(id="found")
            yield Static(Content("no input matches"), id="empty")

    def on_mount(self) -> None:
        self._show(self.query_text)
        self.query_one("#query", Input).focus()

    @on(Input.Changed, "#query")
    def _changed(self, event: Input.Changed) -> None:
        self._show(event.value)

    @on(Input.Submitted, "#query")
    def _submitted(self) -> None:
        listing = self.query_one("#found", OptionList)
        index = listing.highlighted
        self.dismiss(self.found[index] if self.found and index is not None else None)

    @on(OptionList.OptionSelected, "#found")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.found[event.option_index])

    def action_close(self) -> None:
        self.dismiss(None)

    def action_move(self, delta: int) -> None:
        """Up/Down, and Ctrl+R again for the next older match."""
        listing = self.query_one("#found", OptionList)
        if self.found:
            listing.highlighted = ((listing.highlighted or 0) + delta) % len(self.found)

    def _show(self, query: str) -> None:
        self.found = matching(self.entries, query)
        listing = self.query_one("#found", OptionList)
        listing.set_options(Option(one_line(entry, 200)) for entry in self.found)
        listing.highlighted = 0 if self.found else None
        listing.display = bool(self.found)
        self.query_one("#empty").display = not self.found
