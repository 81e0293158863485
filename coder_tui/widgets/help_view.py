"""``/help``'s table: the slash commands, the input rules and every key binding, from the same table as the footer;
narrowed to the rows that hold every word typed in the help screen's search."""

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


def matching_sections(sections: Sequence[TableSection], query: str) -> list[TableSection]:
    """The sections with only their rows that hold every word of ``query`` (any case); sections left empty go."""
    words = query.lower().split()
    found = []
    for section in sections:
        rows = tuple(row for row in section.rows if all(word in " ".join(row).lower() for word in words))
        if rows:
            found.append(TableSection(section.title, section.columns, rows, section.indent))
    return found


class HelpView(TableView):
    """The help table: every section, or those rows a search kept (``show``)."""

    def __init__(self, commands: Sequence[tuple[str, str]], *, id: str | None = None) -> None:
        self.all_sections = help_sections(commands)
        super().__init__(self.all_sections, id=id)

    def show(self, query: str) -> int:
        """Shows the rows matching ``query``; how many there are."""
        self.show_sections(matching_sections(self.all_sections, query))
        return sum(len(section.rows) for section in self.sections)
