"""The sub-agent's tool calls listed, live, under the ``task`` call that started them (in the transcript and in the
tool-event log alike)."""

from __future__ import annotations

from textual.widgets import Static

from coder_tui.subagent_calls import SubagentCalls
from engine.events import Event


class SubagentCallsView(Static):
    """Empty (and hidden by its ``-empty`` class) until the sub-agent makes its first call."""

    def __init__(self) -> None:
        super().__init__("", classes="subagent -empty")
        self._calls = SubagentCalls()

    def apply(self, event: Event) -> None:
        if self._calls.apply(event):
            self.update(self._calls.content())
            self.remove_class("-empty")

    @property
    def text(self) -> str:
        """The calls as shown; empty before the first one."""
        return str(self.visual) if self._calls else ""
