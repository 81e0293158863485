"""One tool call in the transcript: a summary line, then its full output, and for a write/edit/patch its diff.

SPEC 15 wants the output and the coloured diff visible without a click; only an output too long to read in place is
folded to its ends (``ToolOutput``), and a running command's output shows live. The parts exist
from the start and are filled in as events arrive, so an update never races the widget's own mounting; a call that
is already finished when it is mounted (a resumed session's) mounts only the parts it shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content

from coder_tui.transcript.formatting import result_error, tool_output_text
from coder_tui.transcript.tool_status import tool_summary
from coder_tui.widgets.diff_view import DiffView
from coder_tui.widgets.sized_by_layout import SizedByLayout, SizedStatic
from coder_tui.widgets.subagent_calls_view import SubagentCallsView
from coder_tui.widgets.tool_output import ToolOutput
from engine.events import Event, ToolProgress, ToolStatus

FINISHED = frozenset({ToolStatus.SUCCESS, ToolStatus.ERROR, ToolStatus.DENIED, ToolStatus.CANCELLED})


class ToolCallView(SizedByLayout, Vertical):
    """A tool call that updates in place as the engine reports its state (or is built whole from history)."""

    DEFAULT_CSS = """
    ToolCallView {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        & > .summary { height: auto; }
        & > .reasons { height: auto; color: $text-warning; padding-left: 2; }
        & > .subagent { height: auto; color: $text-muted; padding-left: 2; }
        & > .output {
            height: auto;
            padding: 0 1;
            margin-left: 2;
            color: $text-muted;
            border-left: vkey $foreground 15%;
        }
        & > .output.-error { color: $text-error; }
        & > DiffView { margin-left: 2; }
        & > .-empty { display: none; }
    }
    """

    def __init__(self, call_id: str, tool: str, key_argument: str) -> None:
        super().__init__()
        self.call_id = call_id
        self.tool = tool
        self.key_argument = key_argument
        self.status = ToolStatus.SCHEDULED
        self.duration_ms: float | None = None
        # What the tool last said of its progress (an MCP server's progress notifications), while it runs.
        self.progress = ""
        self._summary = SizedStatic(self._summary_content(), classes="summary")
        self._reasons = SizedStatic("", classes="reasons -empty")
        self._subagent = SubagentCallsView()
        self._output = ToolOutput(classes="output -empty")
        self._diff = DiffView("", classes="-empty")

    def compose(self) -> ComposeResult:
        yield self._summary
        finished = self.status in FINISHED
        for part in (self._reasons, self._subagent, self._output, self._diff):
            if not (finished and part.has_class("-empty")):
                yield part

    @property
    def output_text(self) -> str:
        """The whole output (folded or not), or what a running command printed so far as shown."""
        if self._output.has_class("-empty"):
            return ""
        return self._output.text or str(self._output.visual)

    @property
    def output(self) -> ToolOutput:
        return self._output

    def add_output(self, text: str) -> None:
        """More of what the running command prints: its last lines show live."""
        self._output.feed(text)
        self._output.remove_class("-empty")

    @property
    def nested_text(self) -> str:
        """The sub-agent's calls as shown under the call."""
        return self._subagent.text

    @property
    def diff(self) -> str:
        return self._diff.diff

    def set_status(self, status: ToolStatus, reasons: tuple[str, ...] = ()) -> None:
        self.status = status
        self._summary.update(self._summary_content())
        if reasons:
            self._reasons.update(Content("\n".join(f"• {reason}" for reason in reasons)))
            self._reasons.remove_class("-empty")

    def set_progress(self, progress: ToolProgress) -> None:
        self.progress = progress.summary()
        self._summary.update(self._summary_content())

    def subagent_event(self, event: Event) -> None:
        """An event of the sub-agent this ``task`` call started: its tool calls are listed under the call, live."""
        self._subagent.apply(event)

    def restore_subagent(self, records: Sequence[Mapping[str, Any]]) -> None:
        """The stored conversation of the sub-agent this ``task`` call started (a resumed session's)."""
        self._subagent.restore(records)

    @property
    def subagent(self) -> SubagentCallsView:
        """The sub-agent's calls and conversation under this call (click to expand)."""
        return self._subagent

    def show_result(
        self,
        status: ToolStatus,
        result: dict[str, Any],
        *,
        diff: str | None = None,
        duration_ms: float | None = None,
        key_argument: str | None = None,
    ) -> None:
        """The final state: duration, the full output, and the diff a write/edit/patch made."""
        self.status = status
        self.duration_ms = duration_ms
        self.key_argument = key_argument or self.key_argument
        self._summary.update(self._summary_content())
        self._reasons.add_class("-empty")
        if diff and result_error(result) is None:
            self._diff.set_diff(diff)
            self._diff.remove_class("-empty")
            return
        todos = result.get("todos") if self.tool in ("todowrite", "todoread") and status is ToolStatus.SUCCESS else None
        if isinstance(todos, list):
            # The list itself follows as a checklist (``TodosChanged``): its JSON would say it twice.
            output = str(result.get("summary", ""))
        else:
            output = tool_output_text(result)
        if output:
            self._output.show(output)
            self._output.set_class(status is not ToolStatus.SUCCESS, "-error")
            self._output.remove_class("-empty")
        else:
            self._output.show("")
            self._output.add_class("-empty")

    def _summary_content(self) -> Content:
        summary = tool_summary(self.tool, self.key_argument, self.status, self.duration_ms)
        if self.progress and self.status is ToolStatus.EXECUTING:
            summary = Content.assemble(summary, "  ", (self.progress, "$text-muted"))
        return summary
