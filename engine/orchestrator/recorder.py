"""What a task writes to the three logs of SPEC 12 besides the conversation: its lifecycle and interactions
(events), every tool call (audit) and every permission decision. One small object per task, so the pipeline steps
say *what* happened and never how it is stored."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from engine.events import TodoItem
from engine.interaction import ApprovalDecision, QuestionRequest
from engine.record import record
from engine.storage.log.records import (
    Actor,
    DecidedBy,
    InteractionRequested,
    InteractionResponded,
    PermissionDecided,
    TaskEvent,
    TaskEventType,
    ToolCallCompleted,
    ToolCallRequested,
)
from engine.storage.store import Store


@record
class TaskRecorder:
    store: Store
    session_id: str
    task_id: str | None

    def task(self, type: TaskEventType, detail: str | None = None) -> None:
        assert self.task_id is not None
        self.store.events.record(self.session_id, TaskEvent(type, self.task_id, detail))

    def todos_changed(self, items: Sequence[TodoItem]) -> None:
        self.store.todos.save(self.session_id, items)

    def tool_requested(
        self, call_id: str, tool: str, arguments: dict[str, Any], actor: Actor = "model", *, defer: bool = False
    ) -> None:
        """``defer`` (here and below): the row waits for the next write, or ``commit``, to save a transaction."""
        row = ToolCallRequested(self.session_id, self.task_id, call_id, tool, arguments, actor)
        self.store.audit.record(row, defer=defer)

    def tool_completed(
        self,
        call_id: str,
        tool: str,
        result: dict[str, Any],
        *,
        is_error: bool,
        duration_ms: float | None,
        actor: Actor = "model",
        defer: bool = False,
    ) -> None:
        row = ToolCallCompleted(self.session_id, self.task_id, call_id, tool, result, is_error, duration_ms, actor)
        self.store.audit.record(row, defer=defer)

    def permission(
        self,
        call_id: str,
        tool: str,
        arguments: dict[str, Any],
        *,
        decision: str,
        decided_by: DecidedBy,
        reasons: tuple[str, ...] | list[str] = (),
        rule: str | None = None,
        defer: bool = False,
    ) -> None:
        row = PermissionDecided(
            self.session_id, self.task_id, call_id, tool, arguments, decision, tuple(reasons), decided_by, rule
        )
        self.store.audit.record(row, defer=defer)

    def commit(self) -> None:
        """Commits the deferred rows now: before anything that may wait (a tool runs, a hook, the user)."""
        self.store.commit_deferred()

    def approval_requested(
        self, call_id: str, tool: str, key_argument: str, arguments: dict[str, Any], reasons: list[str]
    ) -> str:
        """Records the approval as a Confirm interaction, with what is needed to ask it again after a crash."""
        interaction_id = uuid.uuid4().hex[:12]
        self.store.events.record(
            self.session_id,
            InteractionRequested(
                interaction_id,
                self.task_id,
                "Confirm",
                "confirm_risky_action",
                f"{tool}: {key_argument}",
                tuple(decision.value for decision in ApprovalDecision if decision is not ApprovalDecision.CANCEL),
                {"call_id": call_id, "tool": tool, "arguments": arguments, "reasons": reasons},
            ),
        )
        return interaction_id

    def question_asked(self, request: QuestionRequest) -> str:
        """Records a question (the ``question`` tool, an undo conflict) as a Select or Input interaction."""
        interaction_id = uuid.uuid4().hex[:12]
        self.store.events.record(
            self.session_id,
            InteractionRequested(
                interaction_id,
                self.task_id,
                "Select" if request.options else "Input",
                "choose_strategy" if request.options else "request_info",
                request.question,
                tuple(request.options),
                {"call_id": request.call_id, "allow_input": request.allow_input},
            ),
        )
        return interaction_id

    def interaction_responded(self, interaction_id: str, answer: str | None, *, cancelled: bool = False) -> None:
        self.store.events.record(
            self.session_id, InteractionResponded(interaction_id, self.task_id, answer, cancelled=cancelled)
        )
