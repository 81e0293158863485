"""``/help``: the slash commands, the input rules and every key binding, from the same table as the footer."""

from __future__ import annotations

from collections.abc import Sequence

from coder_tui.input.bindings import help_rows
from coder_tui.widgets.table_view import Column, TableSection, TableView

INPUT_RULES: tuple[tuple[str, str], ...] = (
    ("text", "a request to the model"),
    ("!command", "run a shell command in the workspace directly (no model, no approval)"),
    ("/command", "run a slash command"),
    ("@path", "attach a workspace file to the request (Tab completes, fuzzy)"),
)

_NAME = Column("bold")
_ABOUT = Column(wrap=True)


def help_sections(commands: Sequence[tuple[str, str]]) -> list[TableSection]:
    """Commands, input rules, then bindings grouped by where they apply; each description wraps in its column."""
    return [
        TableSection("Commands", (_NAME, _ABOUT), tuple(commands)),
        TableSection("Input", (_NAME, _ABOUT), INPUT_RULES),
        TableSection("Keys", (Column("$text-muted"), _NAME, _ABOUT), tuple(help_rows())),
    ]


class HelpView(TableView):
    """The ``/help`` block in the transcript."""

    DEFAULT_CSS = """
    HelpView {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: vkey $primary 50%;
    }
    """

    def __init__(self, commands: Sequence[tuple[str, str]]) -> None:
        super().__init__(help_sections(commands))
