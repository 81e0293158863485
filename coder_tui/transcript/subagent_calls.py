"""The tool calls a sub-agent makes inside a ``task`` call, as the lines shown nested under that call.

The engine forwards a sub-agent's events wrapped in ``SubagentEvent``; the transcript row of the ``task`` call and
its row in the tool-event log both show the same nested lines, one per inner call with its live state, so this keeps
them in one place. Text the sub-agent streams is not shown here: its answer is the ``task`` call's result.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content

from coder_tui.transcript.tool_status import tool_summary
from engine.events import (
    Event,
    ToolCallAwaitingApproval,
    ToolCallExecuting,
    ToolCallFinished,
    ToolCallScheduled,
    ToolStatus,
)

NESTED_MARK = "↳ "


@dataclass
class _InnerCall:
    tool: str
    key_argument: str
    status: ToolStatus = ToolStatus.SCHEDULED
    duration_ms: float | None = None


class SubagentCalls:
    """Inner calls in the order the sub-agent made them, updated from its events."""

    def __init__(self) -> None:
        self._calls: dict[str, _InnerCall] = {}

    def __bool__(self) -> bool:
        return bool(self._calls)

    def apply(self, event: Event) -> bool:
        """Takes a sub-agent event into account; True if the lines changed."""
        match event:
            case ToolCallScheduled(call_id=call_id, tool=tool, key_argument=key_argument):
                self._calls[call_id] = _InnerCall(tool, key_argument)
            case ToolCallAwaitingApproval(call_id=call_id) if call_id in self._calls:
                self._calls[call_id].status = ToolStatus.AWAITING_APPROVAL
            case ToolCallExecuting(call_id=call_id) if call_id in self._calls:
                self._calls[call_id].status = ToolStatus.EXECUTING
            case ToolCallFinished(call_id=call_id, tool=tool, key_argument=key_argument, status=status):
                call = self._calls.setdefault(call_id, _InnerCall(tool, key_argument))
                call.key_argument = key_argument or call.key_argument
                call.status = status
                call.duration_ms = event.duration_ms
            case _:
                return False
        return True

    def restore(self, call_id: str, tool: str, key_argument: str, status: ToolStatus | None) -> None:
        """A call of a stored conversation: finished (``status``), or cut off when it has no result (None)."""
        self._calls[call_id] = _InnerCall(tool, key_argument, status or ToolStatus.CANCELLED)

    def content(self, width: int | None = None) -> Content:
        """One ``↳ ✓ read  notes.txt  success 12ms`` line per inner call."""
        return Content("\n").join(
            Content.assemble(NESTED_MARK, tool_summary(c.tool, c.key_argument, c.status, c.duration_ms, width=width))
            for c in self._calls.values()
        )
