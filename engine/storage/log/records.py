"""What the event and audit logs write and read back: a task's lifecycle and the interactions (events), each tool call
and each permission decision (audit). An audit row is one record, made once by whoever saw it happen and written as
it is (``AuditTrail.record``). The Literal types are the closed vocabularies of SPEC 12 (the database CHECKs the same
sets)."""

from __future__ import annotations

from dataclasses import field
from typing import Any, Literal

from engine.record import record

TaskEventType = Literal["TaskCreated", "TaskStarted", "TaskCompleted", "TaskFailed", "TaskCanceled"]
TASK_ENDINGS: tuple[TaskEventType, ...] = ("TaskCompleted", "TaskFailed", "TaskCanceled")
InteractionKind = Literal["Select", "Confirm", "Input"]
InteractionPurpose = Literal["choose_strategy", "request_info", "confirm_risky_action", "assign_subtask", "generic"]
Actor = Literal["model", "user"]
DecidedBy = Literal["policy", "user", "config"]


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


@record
class ToolCallRequested:
    """An audit row's first step: a tool call asked for, by the model or the user (a ``!`` command, a hook)."""

    session_id: str
    task_id: str | None
    call_id: str
    tool: str
    input: dict[str, Any]
    actor: Actor = "model"


@record
class ToolCallCompleted:
    """An audit row's second step: what the call gave back, whether it failed, and how long it took."""

    session_id: str
    task_id: str | None
    call_id: str
    tool: str
    output: dict[str, Any]
    is_error: bool
    duration_ms: float | None
    actor: Actor = "model"


@record
class PermissionDecided:
    """A permission decision, as ``PermissionEntry`` reads it back: by the policy, the user or the configuration."""

    session_id: str
    task_id: str | None
    call_id: str | None
    tool: str
    arguments: dict[str, Any]
    decision: str
    reasons: tuple[str, ...]
    decided_by: DecidedBy
    rule: str | None = None


AuditRow = ToolCallRequested | ToolCallCompleted | PermissionDecided
