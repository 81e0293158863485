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
from engine.storage.records import (
    Actor,
    DecidedBy,
    InteractionRequested,
    InteractionResponded,
    TaskEvent,
    TaskEventType,
)
from engine.storage.store import Store


@record
class TaskRecorder:
    store: Store
    session_id: str
    task_id: str | None

    def task(self, type: TaskEventType, detail: str | None = None) -> None:
        assert self.task_id is not None
        self.store.record_event(self.session_id, TaskEvent(type, self.task_id, detail))

    def todos_changed(self, items: Sequence[TodoItem]) -> None:
        self.store.save_todos(self.session_id, items)

    def tool_requested(
        self, call_id: str, tool: str, arguments: dict[str, Any], actor: Actor = "model", *, defer: bool = False
    ) -> None:
        """``defer`` (here and below): the row waits for the next write, or ``commit``, to save a transaction."""
        self.store.record_tool_call_requested(
            self.session_id, call_id=call_id, tool=tool, input=arguments, actor=actor, task_id=self.task_id,
            defer=defer,
        )

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
        self.store.record_tool_call_completed(
            self.session_id,
            call_id=call_id,
            tool=tool,
            output=result,
            is_error=is_error,
            duration_ms=duration_ms,
            actor=actor,
            task_id=self.task_id,
            defer=defer,
        )

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
        self.store.record_permission(
            self.session_id,
            tool=tool,
            arguments=arguments,
            decision=decision,
            reasons=list(reasons),
            decided_by=decided_by,
            rule=rule,
            task_id=self.task_id,
            call_id=call_id,
            defer=defer,
        )

    def commit(self) -> None:
        """Commits the deferred rows now: before anything that may wait (a tool runs, a hook, the user)."""
        self.store.commit_deferred()

    def approval_requested(
        self, call_id: str, tool: str, key_argument: str, arguments: dict[str, Any], reasons: list[str]
    ) -> str:
        """Records the approval as a Confirm interaction, with what is needed to ask it again after a crash."""
        interaction_id = uuid.uuid4().hex[:12]
        self.store.record_event(
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
        self.store.record_event(
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
        self.store.record_event(
            self.session_id, InteractionResponded(interaction_id, self.task_id, answer, cancelled=cancelled)
        )
