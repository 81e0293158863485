"""What the store writes and reads back: typed records for sessions, the event log, the audit log and the
permission log. The Literal types are the closed vocabularies of SPEC 12 (the database CHECKs the same sets)."""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any, Literal

from engine.record import record

if TYPE_CHECKING:
    from engine.messages import Message

TaskEventType = Literal["TaskCreated", "TaskStarted", "TaskCompleted", "TaskFailed", "TaskCanceled"]
TASK_ENDINGS: tuple[TaskEventType, ...] = ("TaskCompleted", "TaskFailed", "TaskCanceled")
InteractionKind = Literal["Select", "Confirm", "Input"]
InteractionPurpose = Literal["choose_strategy", "request_info", "confirm_risky_action", "assign_subtask", "generic"]
Actor = Literal["model", "user"]
DecidedBy = Literal["policy", "user", "config"]


@record
class SessionSummary:
    """One row of the ``/resume`` picker: title is the first request, trimmed."""

    id: str
    title: str
    created_at: str
    updated_at: str
    model: str
    mode: str
    message_count: int
    origin: str = "tui"  # where it was made: "tui" (the full screen), "headless" or "acp"


@record
class LoadedSession:
    """A session as resume needs it: ``messages`` is the model's view of the latest context epoch (after a
    compaction: its summary, then the messages kept and those made since), not the whole history."""

    info: SessionSummary
    messages: list[Message]
    # The task that was created or started but never ended: the process stopped during it.
    unfinished_task_id: str | None = None
    # Beside each message: its position in the session's history, and its stored (redacted) JSON text.
    seqs: tuple[int, ...] = ()
    encoded: tuple[str, ...] = ()
    epoch: int = 0


@record
class HistoryMessage:
    """One stored message of a session's whole history. ``epoch``: the context epoch it was made in; ``diff``: the
    diff a tool message showed when it ran (kept beside the message, never sent to the model); ``rewound``: cut from
    the conversation by a ``/rewind`` (the model no longer sees it)."""

    seq: int
    epoch: int
    message: Message
    created_at: str
    diff: str | None = None
    rewound: bool = False


@record
class CompactionMarker:
    """"Context compacted here": the point of the history where a compaction started context epoch ``epoch``.
    ``summary`` is the message that took the place of everything before it in the model's view; the messages from
    ``kept_from_seq`` on stayed in that view verbatim."""

    seq: int
    epoch: int
    summary: Message
    tokens_before: int
    tokens_after: int
    kept_from_seq: int | None
    created_at: str


HistoryEntry = HistoryMessage | CompactionMarker


@record
class TaskEvent:
    """A task's lifecycle: one task per user turn. ``detail`` is the request (created) or the error (failed)."""

    type: TaskEventType
    task_id: str
    detail: str | None = None


@record
class InteractionRequested:
    """An approval or a question put to the user. ``data`` holds what is needed to ask it again on resume (for a
    tool approval: ``call_id``, ``tool``, ``arguments``...)."""

    interaction_id: str
    task_id: str | None
    kind: InteractionKind
    purpose: InteractionPurpose
    display: str
    options: tuple[str, ...] = ()
    data: dict[str, Any] = field(default_factory=dict)


@record
class InteractionResponded:
    interaction_id: str
    task_id: str | None
    answer: str | None
    cancelled: bool = False


LoggedEvent = TaskEvent | InteractionRequested | InteractionResponded


@record
class EventRecord:
    """An event as read back, with its time."""

    event: LoggedEvent
    created_at: str


@record
class PendingInteraction:
    """An interaction requested but never answered while its task was still running: to be asked again."""

    request: InteractionRequested
    requested_at: str


@record
class AuditEntry:
    """One tool call, ``!`` commands included: requested (input) and, once it ended, completed (output)."""

    call_id: str
    tool: str
    actor: Actor
    task_id: str | None
    input: dict[str, Any]
    requested_at: str
    output: dict[str, Any] | None = None
    is_error: bool | None = None
    duration_ms: float | None = None
    completed_at: str | None = None


@record
class PermissionEntry:
    """One permission decision: ``decision`` is the policy's action (allow/ask/deny/blocked), the user's answer
    (yes/no/always/cancel) or the configuration's (allow/refuse)."""

    tool: str
    arguments: dict[str, Any]
    decision: str
    reasons: tuple[str, ...]
    decided_by: DecidedBy
    rule: str | None
    task_id: str | None
    call_id: str | None
    created_at: str
