"""Two-column output as tables (issue 13 item 2): ``/help``, ``/tools`` and ``/permissions`` keep each value on its
row and wrap long cells under their own column, at 120x40 with the side panes and at 80x24."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder_tui.widgets.command_output import CommandOutput
from coder_tui.widgets.help_view import HelpView
from coder_tui.widgets.table_view import Column, TableSection, TableView, column_widths, section_lines
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import SIZE_IDS, SIZES, make_app, ready, settle, submit

SECTION = TableSection(
    "Tools",
    (Column("bold"), Column(), Column(wrap=True)),
    (
        ("read", "allow", "Read a text file of the workspace."),
        ("bash", "by command", "Run a shell command with bash -c in the workspace root, with no terminal and no input "
                                "(stdin is empty; interactive prompts fail)."),
    ),
)


def column_starts(section: TableSection, width: int) -> list[int]:
    starts, x = [], section.indent
    for size in column_widths(section, width):
        starts.append(x)
        x += size + 2
    return starts


@pytest.mark.parametrize("width", [120, 80, 50, 36])
def test_long_cells_wrap_under_their_own_column(width: int) -> None:
    lines = [line.plain for line in section_lines(SECTION, width)]
    assert lines[0] == "Tools"
    assert all(len(line) <= width for line in lines)
    wrap_start = column_starts(SECTION, width)[2]
    rows = lines[1:]
    assert rows[0].startswith("  read") and "allow" in rows[0]
    bash = next(index for index, line in enumerate(rows) if line.startswith("  bash"))
    assert "by" in rows[bash]  # the value is on its row's first line
    continuation = rows[bash + 1:]
    assert continuation, "the long description wraps"
    for line in continuation:
        # Only the wrapped column goes on below (and at narrow widths, the rest of a narrowed value).
        assert line[wrap_start:].strip() and not line[:column_starts(SECTION, width)[1]].strip()
    words = " ".join(line[wrap_start:] for line in rows[bash:]).split()
    assert words == SECTION.rows[1][2].split()


def test_columns_that_fit_keep_their_natural_width() -> None:
    assert column_widths(SECTION, 200) == [4, 10, len(SECTION.rows[1][2])]


def rendered_rows(view: TableView) -> list[str]:
    return [line.plain for line in view.lines(view.size.width)]


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_permissions_keeps_each_decision_on_its_rule_line(
    workspace: Path, scripted_server: ScriptedServer, size: tuple[int, int]
) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        assert app.session.panes_visible == (size[0] >= 100)
        await submit(pilot, "/permissions")
        await settle(pilot)
        view = app.session.transcript.query_one(TableView)
        rows = rendered_rows(view)
        matrix = app.session.transcript.query_one(CommandOutput).result.matrix
        assert all(len(row) <= view.size.width for row in rows)
        for rule, decision in matrix:
            first_words = " ".join(rule.split()[:2])
            line = next(row for row in rows if row.strip().startswith(first_words))
            assert line.rstrip().endswith(decision)
        decision_column = max(row.rstrip().rfind(" ") for row in rows if row.rstrip().endswith("allow"))
        assert decision_column < view.size.width


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_tools_and_help_wrap_their_descriptions_under_the_description_column(
    workspace: Path, scripted_server: ScriptedServer, size: tuple[int, int]
) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await submit(pilot, "/tools")
        await settle(pilot)
        await submit(pilot, "/help")
        await settle(pilot)
        for view in [*app.session.transcript.query(TableView), app.screen.query_one(HelpView)]:
            width = view.size.width
            allowed = {start for section in view.sections for start in column_starts(section, width)}
            rows = [row for row in rendered_rows(view) if row.startswith(" ")]  # the rows, not the titles
            starts = {len(row) - len(row.lstrip()) for row in rows}
            # Every line starts under one of its columns: nothing wraps back to the left edge.
            assert starts <= allowed, (type(view).__name__, sorted(starts - allowed))
            assert all(len(row) <= width for row in rows)
