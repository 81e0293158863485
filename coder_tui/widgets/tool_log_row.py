"""One row of the tool-event log: live state, tool, key argument and duration; an edit's diff inline, capped; a
``task`` call's sub-agent calls nested under it."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content

from coder_tui.transcript.tool_status import tool_summary
from coder_tui.widgets.diff_view import DiffView
from coder_tui.widgets.sized_by_layout import SizedByLayout, SizedStatic
from coder_tui.widgets.subagent_calls_view import SubagentCallsView
from coder_tui.widgets.tool_call_view import FINISHED
from engine.events import Event, ToolStatus

# The log is a narrow side pane: the transcript has the whole diff, the row shows its start.
INLINE_DIFF_LINES = 12


class ToolLogRow(SizedByLayout, Vertical):
    """A tool call's row, updated in place."""

    DEFAULT_CSS = """
    ToolLogRow {
        height: auto;
        & > .summary { height: auto; text-wrap: nowrap; text-overflow: ellipsis; }
        & > .subagent {
            height: auto; padding-left: 2; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis;
        }
        & > .subagent.-empty { display: none; }
        & > DiffView { padding: 0 0 0 2; }
        & > DiffView.-empty { display: none; }
    }
    """

    def __init__(self, call_id: str, tool: str, key_argument: str) -> None:
        super().__init__()
        self.call_id = call_id
        self.tool = tool
        self.key_argument = key_argument
        self.status = ToolStatus.SCHEDULED
        self.duration_ms: float | None = None
        self._summary = SizedStatic(self._content(), classes="summary")
        self._subagent = SubagentCallsView()
        self._diff = DiffView("", max_lines=INLINE_DIFF_LINES, classes="-empty")

    def compose(self) -> ComposeResult:
        yield self._summary
        # A row that is finished when it is mounted (a resumed session's) mounts only what it shows.
        finished = self.status in FINISHED
        for part in (self._subagent, self._diff):
            if not (finished and part.has_class("-empty")):
                yield part

    def set_status(self, status: ToolStatus, duration_ms: float | None = None, diff: str | None = None) -> None:
        self.status = status
        self.duration_ms = duration_ms
        self._summary.update(self._content())
        if diff:
            self._diff.set_diff(diff)
            self._diff.remove_class("-empty")

    def subagent_event(self, event: Event) -> None:
        self._subagent.apply(event)

    @property
    def nested_text(self) -> str:
        """The sub-agent's calls as shown under the row."""
        return self._subagent.text

    @property
    def diff(self) -> str:
        return self._diff.diff

    def _content(self) -> Content:
        return tool_summary(self.tool, self.key_argument, self.status, self.duration_ms)
