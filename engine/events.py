"""The closed set of events the engine emits. A front end renders them with one ``match`` over ``Event``.

Events are facts, not text for a screen: they carry data and the front end decides how it looks.
"""

from __future__ import annotations

from dataclasses import field
from enum import Enum
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from engine.command_results import CommandEvent
from engine.record import record
from engine.settings_results import SettingsEvent

if TYPE_CHECKING:
    # Only an annotation here: importing it would load pydantic before the TUI's first frame.
    from engine.messages import Message
    from engine.restored import RestoredEntry

# "verify_failed": the answer came, but auto-verify still failed after its retries (SPEC 8).
# "refused": the user answered a plain "no" to an approval, which stops the turn (SPEC 5).
TurnEndReason = Literal["completed", "step_limit", "error", "cancelled", "loop_detected", "verify_failed", "refused"]


class ToolStatus(str, Enum):
    SCHEDULED = "scheduled"
    AWAITING_APPROVAL = "awaiting_approval"
    EXECUTING = "executing"
    SUCCESS = "success"
    ERROR = "error"
    DENIED = "denied"
    CANCELLED = "cancelled"


@record
class TurnStarted:
    turn_id: str
    text: str


@record
class TurnFinished:
    turn_id: str
    reason: TurnEndReason
    error: str | None = None


@record
class TextDelta:
    text: str


@record
class ReasoningDelta:
    text: str


@record
class MessageAdded:
    """A message was appended to the conversation (and persisted)."""

    message: Message


@record
class ToolCallScheduled:
    call_id: str
    tool: str
    key_argument: str
    arguments: dict[str, Any]


@record
class ToolCallAwaitingApproval:
    call_id: str
    tool: str
    reasons: tuple[str, ...]


@record
class ToolCallExecuting:
    call_id: str
    tool: str


@record
class ToolCallOutput:
    """What a running call (a ``bash`` command) printed since the last such event, as it comes (SPEC 15): a front
    end shows the last lines live. Coalesced (a few a second at most) and bounded: a flood sends its latest text,
    and ``skipped`` counts the characters left out before it. The whole (capped) output is in ``ToolCallFinished``."""

    call_id: str
    stream: Literal["stdout", "stderr"]
    text: str
    skipped: int = 0


@record
class ToolCallFinished:
    call_id: str
    tool: str
    key_argument: str
    status: ToolStatus
    # How long the tool ran (the wait for an approval left out); None when it never ran (refused, bad arguments).
    duration_ms: float | None
    # The JSON object written back to the model ({"ok": true, ...} or {"ok": false, "error": ...}).
    result: dict[str, Any]
    # The unified diff a write/edit/patch made, shown by the UI.
    diff: str | None = None


@record
class ToolProgress:
    """A running call's progress, as an MCP server reports it (``notifications/progress``): ``progress`` of
    ``total`` (None when the server does not know the total) and what it is doing now."""

    call_id: str
    tool: str
    progress: float
    total: float | None = None
    message: str | None = None

    def summary(self) -> str:
        """As a call's row shows it: ``2/3 (67%) copying``, or ``2 copying`` with no total."""
        done = f"{self.progress:g}"
        if self.total:
            done = f"{done}/{self.total:g} ({min(max(self.progress / self.total, 0.0), 1.0):.0%})"
        return f"{done} {self.message.strip()}".strip() if self.message else done


@record
class TodoItem:
    id: str
    content: str
    status: Literal["pending", "in_progress", "completed", "cancelled"]


@record
class TodosChanged:
    todos: tuple[TodoItem, ...]


@record
class AgentsChanged:
    """The agents of the workspace (SPEC 26) after one started, changed state, todos or tokens, or was
    discarded: one row each (``engine.agents.records.AgentRecord.row``)."""

    agents: tuple[dict[str, Any], ...]


@record
class ModeChanged:
    mode: str


@record
class ModelChanged:
    model: str


@record
class UsageUpdated:
    prompt_tokens: int
    completion_tokens: int
    context_tokens: int
    context_window: int
    # Of ``prompt_tokens``, those the server read from its prompt cache.
    cached_tokens: int = 0
    # What the session has spent so far in US dollars, when the request's price is known (SPEC 27).
    session_cost_usd: float | None = None


@record
class ContextCompacted:
    tokens_before: int
    tokens_after: int
    summary: str
    # What the summary carries verbatim besides the model's words ("the original request", "2 open todos").
    kept: tuple[str, ...] = ()


@record
class HistoryRestored:
    """A session was resumed: its whole history (every context epoch, in order) for the transcript, and each
    sub-agent's conversation (message records) by the id of the ``task`` call that started it.

    The entries travel as one JSON array text of ``engine.restored.RestoredEntry`` objects (``entries()`` reads
    them): a long
    session's history is thousands of records, and one text crosses the engine's pipe and is parsed at C speed,
    where thousands of nested objects would each be encoded and rebuilt one by one."""

    session_id: str
    entries_json: str
    subagents: dict[str, tuple[dict[str, Any], ...]] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        session_id: str,
        entries: Sequence[RestoredEntry],
        subagents: dict[str, tuple[dict[str, Any], ...]] | None = None,
    ) -> HistoryRestored:
        import json
        from dataclasses import asdict

        text = json.dumps([asdict(entry) for entry in entries], ensure_ascii=False)
        return cls(session_id, text, subagents or {})

    def entries(self) -> list[RestoredEntry]:
        import json

        from engine.restored import RestoredEntry

        return [RestoredEntry(**item) for item in json.loads(self.entries_json)]


@record
class LoopDetected:
    kind: str  # repeated_tool_call | tool_cycle | repeated_text
    what: str


@record
class VerificationStarted:
    command: str
    attempt: int


@record
class VerificationFinished:
    command: str
    outcome: Literal["passed", "fixable", "environment"]
    exit_code: int | None
    reason: str
    output_tail: str


@record
class SubagentEvent:
    """An event of a sub-agent (the ``task`` tool), shown nested under the call that started it."""

    parent_call_id: str
    event: Event


@record
class SlashCommandsChanged:
    """The slash commands on offer changed (an MCP server's prompts came or went): (name, summary) pairs, for
    Tab completion."""

    commands: tuple[tuple[str, str], ...]


@record
class Notice:
    text: str
    level: Literal["info", "warning"] = "info"


@record
class ErrorEvent:
    message: str


Event = (
    TurnStarted
    | TurnFinished
    | TextDelta
    | ReasoningDelta
    | MessageAdded
    | ToolCallScheduled
    | ToolCallAwaitingApproval
    | ToolCallExecuting
    | ToolCallOutput
    | ToolCallFinished
    | ToolProgress
    | TodosChanged
    | AgentsChanged
    | CommandEvent
    | SettingsEvent
    | ModeChanged
    | ModelChanged
    | UsageUpdated
    | ContextCompacted
    | HistoryRestored
    | LoopDetected
    | VerificationStarted
    | VerificationFinished
    | SubagentEvent
    | SlashCommandsChanged
    | Notice
    | ErrorEvent
)


def event_to_dict(event: Event) -> dict[str, Any]:
    """A JSON-ready dict with a ``type`` key, for ``--output-format json`` and logs."""
    from dataclasses import asdict

    if isinstance(event, SubagentEvent):
        return {"type": "SubagentEvent", "parent_call_id": event.parent_call_id, "event": event_to_dict(event.event)}
    data = asdict(event)
    if isinstance(event, MessageAdded):
        data["message"] = event.message.to_record()
    for key, value in data.items():
        if isinstance(value, Enum):
            data[key] = value.value
    return {"type": type(event).__name__, **data}
