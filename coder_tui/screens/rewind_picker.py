"""The ``/rewind`` picker (SPEC 23): this conversation's requests, newest first. Enter rewinds to the highlighted
one — the files go back to before it, the conversation is cut there and the request returns to the prompt; Esc
closes the list and nothing changes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from coder_tui.bindings import bindings_for
from coder_tui.formatting import one_line


def rewind_option(point: dict[str, Any], width: int = 72) -> Option:
    number = int(point["number"])
    prompt = Content.assemble((f"{number:>3}  ", "$text-muted"), one_line(str(point["text"]), width))
    return Option(prompt, id=str(number))


class RewindPickerScreen(ModalScreen[int | None]):
    """Dismissed with the chosen request's number, or None."""

    DEFAULT_CSS = """
    RewindPickerScreen {
        align: center middle;
        background: $background 60%;
    }
    RewindPickerScreen > #dialog {
        width: 90%;
        max-width: 100;
        height: auto;
        max-height: 90%;
        padding: 1 2;
        border: thick $warning;
        background: $surface;
    }
    RewindPickerScreen #title { text-style: bold; }
    RewindPickerScreen OptionList { height: auto; max-height: 14; margin: 1 0 0 0; }
    RewindPickerScreen #hint { color: $text-muted; margin: 1 0 0 0; }
    """

    BINDINGS = bindings_for("rewind")

    def __init__(self, points: Sequence[dict[str, Any]]) -> None:
        super().__init__()
        self.points = list(points)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content("Rewind to before which request?"), id="title")
            yield OptionList(*(rewind_option(p) for p in reversed(self.points)), id="points")
            yield Static(
                Content("Files the later turns changed go back; the conversation is cut there. Enter rewinds · "
                        "Esc closes"),
                id="hint",
            )

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def action_close(self) -> None:
        self.dismiss(None)

    @on(OptionList.OptionSelected, "#points")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        assert event.option.id is not None
        self.dismiss(int(event.option.id))
