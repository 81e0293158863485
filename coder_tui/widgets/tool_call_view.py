"""One tool call in the transcript: a summary line, then its full output, and for a write/edit/patch its diff.

SPEC 15 wants the output and the coloured diff visible without a click, so nothing here folds.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from coder_tui.formatting import tool_output_text
from coder_tui.tool_status import tool_summary
from coder_tui.widgets.diff_view import DiffView
from engine.events import ToolCallFinished, ToolStatus


class ToolCallView(Vertical):
    """A tool call that updates in place as the engine reports its state."""

    DEFAULT_CSS = """
    ToolCallView {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        & > .summary { height: auto; }
        & > .reasons { height: auto; color: $text-warning; padding-left: 2; }
        & > .output {
            height: auto;
            padding: 0 1;
            margin-left: 2;
            color: $text-muted;
            border-left: vkey $foreground 15%;
        }
        & > .output.-error { color: $text-error; }
        & > DiffView { margin-left: 2; }
    }
    """

    def __init__(self, call_id: str, tool: str, key_argument: str) -> None:
        super().__init__()
        self.call_id = call_id
        self.tool = tool
        self.key_argument = key_argument
        self.status = ToolStatus.SCHEDULED
        self.duration_ms: float | None = None
        self._summary = Static(self._summary_content(), classes="summary")

    def compose(self) -> ComposeResult:
        yield self._summary

    def set_status(self, status: ToolStatus, reasons: tuple[str, ...] = ()) -> None:
        self.status = status
        self._summary.update(self._summary_content())
        if reasons:
            self.mount(Static(Content("\n".join(f"• {reason}" for reason in reasons)), classes="reasons"))

    def finish(self, event: ToolCallFinished) -> None:
        """Shows the final state, the duration, the full output and the diff."""
        self.status = event.status
        self.duration_ms = event.duration_ms
        self.key_argument = event.key_argument or self.key_argument
        self._summary.update(self._summary_content())
        self.query(".reasons").remove()
        output = tool_output_text(event.result)
        if event.diff and event.result.get("ok", True) is not False:
            self.mount(DiffView(event.diff))
        elif output:
            failed = event.status is not ToolStatus.SUCCESS
            self.mount(Static(Content(output), classes="output -error" if failed else "output"))

    def _summary_content(self) -> Content:
        return tool_summary(self.tool, self.key_argument, self.status, self.duration_ms)
