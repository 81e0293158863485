"""The result of a ``!`` command (command, exit code, stdout, stderr) or a ``/`` command, in the transcript.

Most results are their text. A few typed results (``engine.command_results``, ``engine.settings_results``) read
better laid out: ``/diff`` shows its per-file summary (coloured +/-) and then the whole coloured diff, so it reads
top down; ``/skills`` shows each skill's name and where it comes from, with its description under it; ``/resume``'s
list of sessions gives friendly times ("today 09:31") rather than stored ISO stamps; ``/tools`` and ``/permissions``
are tables whose long cells wrap under their own column.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from coder_tui.transcript.formatting import one_line, session_details, shell_text
from coder_tui.widgets.diff_view import DiffView, diff_summary
from coder_tui.widgets.table_view import Column, TableSection, TableView
from coder_tui.widgets.todo_list import todos_checklist
from engine.command_results import (
    CommandReply,
    ContextSummarised,
    DiffShown,
    SessionsListed,
    ReviewFindings,
    ShellCommandRan,
    TodosShown,
)
from engine.settings_results import PermissionsShown, SkillsListed, StatusShown, ToolsListed


class CommandOutput(Vertical):
    """A command's result: its text (or a bang command's fixed structure) and any diff it carries."""

    DEFAULT_CSS = """
    CommandOutput {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        & > .text { height: auto; padding: 0 1; border-left: vkey $foreground 15%; }
        &.-failed > .text { color: $text-error; }
        & > .skill { height: auto; padding: 0 1; margin-top: 1; border-left: vkey $foreground 15%; }
        & > .skill-description {
            height: auto; padding: 0 1 0 4; color: $text-muted; border-left: vkey $foreground 15%;
        }
        & > .problems { height: auto; padding: 0 1; margin-top: 1; color: $text-warning; }
        & > TableView { padding: 0 1; border-left: vkey $foreground 15%; }
        & > .summary { padding: 0 1; border-left: vkey $foreground 15%; }
    }
    """

    def __init__(self, result: CommandReply, *, now: datetime | None = None) -> None:
        """``now``: the local time, for ``/resume``'s friendly times."""
        super().__init__(classes="" if result.ok else "-failed")
        self.result = result
        self.now = now

    @property
    def diff(self) -> str:
        """The diff this result carries ("" when none)."""
        diff = self.result.diff if isinstance(self.result, DiffShown) else ""
        return diff if diff.strip() else ""

    def compose(self) -> ComposeResult:
        result = self.result
        if isinstance(result, DiffShown) and result.files:
            summary = diff_summary(result.text.partition("\n")[0], list(result.files))
            note = result.note
            yield Static(Content("\n").join([summary, Content(note)]) if note else summary, classes="text")
        elif isinstance(result, SkillsListed) and result.skills:
            yield from self._skills(list(result.skills), result.problems)
        elif isinstance(result, SessionsListed) and result.sessions and self.now is not None:
            yield Static(self._sessions(list(result.sessions), self.now), classes="text")
        elif isinstance(result, ContextSummarised):
            # The line "context compacted here" already says what happened: this is what the model now reads.
            from coder_tui.widgets.markdown_lines import MarkdownLines

            yield Static(Content.styled("the summary the model reads from now on:", "$text-muted"), classes="text")
            yield MarkdownLines(result.summary, classes="summary")
        elif isinstance(result, ReviewFindings) and result.findings:
            from coder_tui.screens.review_findings import finding_line

            lines = [Content(result.text), *(Content.assemble("  ", finding_line(row)) for row in result.findings)]
            yield Static(Content("\n").join(lines), classes="text")
        elif isinstance(result, TodosShown) and result.todos:
            yield Static(todos_checklist(list(result.todos), result.text.rstrip().rpartition("\n")[2]), classes="text")
        elif (table := self._table()) is not None:
            yield Static(Content(result.text.partition("\n")[0]), classes="text")
            yield TableView([table])
        elif text := self._text():
            yield Static(Content(text.rstrip("\n")), classes="text")
        if self.diff:
            yield DiffView(self.diff)

    def _table(self) -> TableSection | None:
        """``/tools`` (tool, state, what it does), ``/permissions`` (what, decision) and ``/status`` (what, value) as
        tables; else None."""
        result = self.result
        if isinstance(result, StatusShown) and result.rows:
            # A long value (the sandbox, the MCP servers) wraps under its own column, not under the names.
            rows = tuple((str(what), str(value)) for what, value in result.rows)
            return TableSection("", (Column("bold"), Column(wrap=True)), rows)
        if isinstance(result, ToolsListed) and result.tools:
            tools = result.tools
            rows = tuple((str(t.get("name", "")), str(t.get("state", "")), str(t.get("summary", ""))) for t in tools)
            return TableSection("", (Column("bold"), Column("$text-accent"), Column(wrap=True)), rows)
        if isinstance(result, PermissionsShown) and result.matrix:
            rows = tuple((str(what), str(decision)) for what, decision in result.matrix)
            return TableSection("", (Column(wrap=True), Column("bold")), rows)
        return None

    def _text(self) -> str:
        result = self.result
        if isinstance(result, ShellCommandRan):
            return shell_text(result.command, result.exit_code, result.stdout, result.stderr)
        return result.text

    def _sessions(self, sessions: list[dict[str, Any]], now: datetime) -> Content:
        rows = [
            Content.assemble(
                "  ", (one_line(str(row.get("title") or "(untitled)"), 60), "bold"),
                "  ", (session_details(row, now), "$text-muted"),
            )
            for row in sessions
        ]
        return Content("\n").join([Content(self.result.text.partition("\n")[0]), *rows])

    def _skills(self, skills: list[dict[str, Any]], problems: tuple[str, ...]) -> Iterator[Widget]:
        yield Static(Content(self.result.text.partition("\n")[0]), classes="text")
        for skill in skills:
            name, source = str(skill.get("name", "")), str(skill.get("source", ""))
            yield Static(Content.assemble((name, "bold"), "  ", (source, "$text-accent")), classes="skill")
            yield Static(Content(str(skill.get("description", ""))), classes="skill-description")
        if problems:
            lines = "\n".join(f"  {problem}" for problem in problems)
            yield Static(Content(f"problems:\n{lines}"), classes="problems")
