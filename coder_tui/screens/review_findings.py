"""What ``/review`` found (SPEC 27), as a list: the arrows move, Enter opens the finding's file at its line in the
user's editor (the editor Ctrl+G uses) and comes back to the list; Esc closes it. The transcript keeps the review's
answer, so closing the list loses nothing."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from coder_tui.input.bindings import bindings_for


def finding_line(row: dict[str, Any]) -> Content:
    return Content.assemble((f"{row['path']}:{row['line']}", "bold $text-accent"), "  ", str(row["text"]))


class ReviewFindingsScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    ReviewFindingsScreen { align: center middle; background: $background 60%; }
    ReviewFindingsScreen > #dialog {
        width: 90%; max-width: 110; height: auto; max-height: 90%;
        padding: 1 2; border: thick $primary; background: $surface;
    }
    ReviewFindingsScreen #title { text-style: bold; }
    ReviewFindingsScreen OptionList { height: auto; max-height: 20; margin: 1 0 0 0; }
    ReviewFindingsScreen #hint { color: $text-muted; margin: 1 0 0 0; }
    """

    BINDINGS = bindings_for("findings")

    def __init__(self, title: str, findings: Sequence[dict[str, Any]], workspace: Path) -> None:
        super().__init__()
        self.title_text = title
        self.findings = list(findings)
        self.workspace = workspace

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content(self.title_text), id="title")
            yield OptionList(*(Option(finding_line(row), id=str(index)) for index, row in enumerate(self.findings)),
                             id="findings")
            yield Static(Content("Enter opens the file at that line in your editor · Esc closes"), id="hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def action_close(self) -> None:
        self.dismiss(None)

    @on(OptionList.OptionSelected, "#findings")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        from textual.app import SuspendNotSupported

        from coder_tui.input.external_editor import EditorError, open_file

        row = self.findings[int(event.option.id or 0)]
        try:
            with self.app.suspend():
                open_file(self.workspace / str(row["path"]), int(row["line"]))
        except SuspendNotSupported:
            self.notify("this terminal cannot hand itself to an editor", severity="warning")
        except EditorError as exc:
            self.notify(str(exc), severity="error", timeout=6)
