"""The ``/model`` picker (issue 29 item 6): with no name, ``/model`` lists the server's models; this list lets the
user pick one with the arrows and Enter (the current one highlighted) instead of typing its name. Esc closes it and
nothing changes."""

from __future__ import annotations

from collections.abc import Sequence

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from coder_tui.input.bindings import bindings_for


class ModelPickerScreen(ModalScreen[str | None]):
    """Dismissed with the chosen model's name, or None."""

    DEFAULT_CSS = """
    ModelPickerScreen { align: center middle; background: $background 60%; }
    ModelPickerScreen > #dialog {
        width: 90%; max-width: 80; height: auto; max-height: 90%;
        padding: 1 2; border: thick $primary; background: $surface;
    }
    ModelPickerScreen #title { text-style: bold; }
    ModelPickerScreen OptionList { height: auto; max-height: 16; margin: 1 0 0 0; }
    ModelPickerScreen #hint { color: $text-muted; margin: 1 0 0 0; }
    """

    BINDINGS = bindings_for("model")
    HINT = "Enter switches (saved in .coder/config.json) · Esc closes"

    def __init__(self, models: Sequence[str], current: str) -> None:
        super().__init__()
        self.models = list(models)
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content(self.title_text()), id="title")
            yield OptionList(
                *(Option(Content.assemble(name, ("  (current)", "$text-muted") if name == self.current else ""),
                         id=name) for name in self.models),
                id="models",
            )
            yield Static(Content(self.HINT), id="hint")

    def title_text(self) -> str:
        # The model in use may be none the server has (none was configured): then it is a first choice.
        return f"Switch model (now {self.current})" if self.current in self.models else "Choose a model"

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        if self.current in self.models:
            options.highlighted = self.models.index(self.current)
        options.focus()

    def action_close(self) -> None:
        self.dismiss(None)

    @on(OptionList.OptionSelected, "#models")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
