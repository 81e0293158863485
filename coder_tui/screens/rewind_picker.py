"""The ``/rewind`` picker (SPEC 23): this conversation's requests, newest first, each with how many files its turn
changed. Enter on a request offers what to restore: code and conversation, code only, or conversation only (as
Claude Code does); Enter on a choice rewinds. Esc closes and nothing changes, and nothing is left behind in the
transcript."""

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

from coder_tui.input.bindings import bindings_for
from coder_tui.transcript.formatting import one_line

Choice = tuple[int, str]  # the request's number and what to restore: all, code or conversation


def files_label(point: dict[str, Any]) -> str:
    files = point.get("files")
    # None: no change of its turn is on the undo stack (it changed nothing, or fell off the stack).
    label = "no change" if files is None else f"{files} file{'s' if files != 1 else ''}"
    return label + (" · compacted" if point.get("archived") else "")


def rewind_option(point: dict[str, Any], width: int = 60) -> Option:
    number = int(point["number"])
    prompt = Content.assemble(
        (f"{number:>3}  {files_label(point):<16}", "$text-muted"), one_line(str(point["text"]), width)
    )
    return Option(prompt, id=str(number))


def scope_options(point: dict[str, Any]) -> list[Option]:
    archived = bool(point.get("archived"))
    return [
        Option("Restore code and conversation", id="all", disabled=archived),
        Option("Restore code only (the conversation stays)", id="code"),
        Option("Restore conversation only (the files stay)", id="conversation", disabled=archived),
    ]


class RewindPickerScreen(ModalScreen[Choice | None]):
    """Dismissed with the chosen request and scope, or None."""

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
    RewindPickerScreen #scopes { display: none; }
    RewindPickerScreen.-choosing #scopes { display: block; }
    RewindPickerScreen.-choosing #points { display: none; }
    RewindPickerScreen #hint { color: $text-muted; margin: 1 0 0 0; }
    """

    BINDINGS = bindings_for("rewind")

    def __init__(self, points: Sequence[dict[str, Any]]) -> None:
        super().__init__()
        self.points = {int(p["number"]): p for p in points}
        self.chosen: int | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content("Rewind to before which request?"), id="title")
            yield OptionList(*(rewind_option(p) for p in reversed(self.points.values())), id="points")
            yield OptionList(id="scopes")
            yield Static(
                Content("Files the later turns changed (shell commands included) go back; the conversation is cut "
                        "there. Enter chooses · Esc closes"),
                id="hint",
            )

    def on_mount(self) -> None:
        self.query_one("#points", OptionList).focus()

    def action_close(self) -> None:
        self.dismiss(None)

    @on(OptionList.OptionSelected, "#points")
    def _request_selected(self, event: OptionList.OptionSelected) -> None:
        assert event.option.id is not None
        self.chosen = int(event.option.id)
        point = self.points[self.chosen]
        self.query_one("#title", Static).update(
            Content.assemble(f"Rewind to before request {self.chosen}: ", one_line(str(point["text"]), 50))
        )
        scopes = self.query_one("#scopes", OptionList)
        scopes.set_options(scope_options(point))
        self.add_class("-choosing")
        scopes.highlighted = 1 if point.get("archived") else 0
        scopes.focus()

    @on(OptionList.OptionSelected, "#scopes")
    def _scope_selected(self, event: OptionList.OptionSelected) -> None:
        assert event.option.id is not None and self.chosen is not None
        self.dismiss((self.chosen, event.option.id))
