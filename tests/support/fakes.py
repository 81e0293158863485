"""Test doubles for the engine's ports, and a builder for an orchestrator wired to the scripted server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from engine.config import Config
from engine.events import Event
from engine.interaction import (
    ApprovalAnswer,
    ApprovalDecision,
    ApprovalRequest,
    ElicitationAnswer,
    ElicitationRequest,
    QuestionAnswer,
    QuestionRequest,
    TrustDecision,
    TrustRequest,
)
from engine.modes import Mode
from engine.orchestrator.orchestrator import Orchestrator


class FakeInteraction:
    """Answers approvals from a script (default: "yes") and records every request it was shown."""

    def __init__(
        self, approvals: Iterable[ApprovalDecision | ApprovalAnswer] = (), answers: Iterable[str] = ()
    ) -> None:
        self.approvals = list(approvals)
        self.answers = list(answers)
        self.approval_requests: list[ApprovalRequest] = []
        self.questions: list[QuestionRequest] = []
        self.trust_requests: list[TrustRequest] = []
        # The answer to "Trust this folder?" (SPEC 19).
        self.trust_answer = TrustDecision.LATER
        # Set to make request_approval wait until the test releases it (an "open dialog").
        self.hold: asyncio.Event | None = None
        # MCP elicitation (SPEC 22): the forms shown, and the answers given (default: declined).
        self.elicitations: list[ElicitationRequest] = []
        self.elicitation_answers: list[ElicitationAnswer] = []

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision | ApprovalAnswer:
        self.approval_requests.append(request)
        if self.hold is not None:
            await self.hold.wait()
        return self.approvals.pop(0) if self.approvals else ApprovalDecision.YES

    async def ask_question(self, request: QuestionRequest) -> QuestionAnswer:
        self.questions.append(request)
        return QuestionAnswer(self.answers.pop(0) if self.answers else None)

    async def request_trust(self, request: TrustRequest) -> TrustDecision:
        self.trust_requests.append(request)
        return self.trust_answer

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        self.elicitations.append(request)
        return self.elicitation_answers.pop(0) if self.elicitation_answers else ElicitationAnswer("decline")


@dataclass
class EventLog:
    events: list[Event] = field(default_factory=list)

    def __call__(self, event: Event) -> None:
        self.events.append(event)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


def make_config(base_url: str, **overrides: Any) -> Config:
    data: dict[str, Any] = {"model": "scripted-model", "provider": {"base_url": base_url, "max_retries": 2}}
    data.update(overrides)
    return Config.model_validate(data)


# Every orchestrator a test makes, so a fixture can release its HTTP connections before the event loop closes.
CREATED: list[Orchestrator] = []


def make_orchestrator(
    workspace: Path,
    base_url: str,
    *,
    mode: Mode | None = None,
    interaction: FakeInteraction | None = None,
    interactive: bool = True,
    env: dict[str, str] | None = None,
    **config: Any,
) -> tuple[Orchestrator, EventLog, FakeInteraction]:
    """``env``: variables the engine sees besides the test key (never the developer's environment)."""
    interaction = interaction or FakeInteraction()
    orchestrator = Orchestrator(
        workspace=workspace,
        config=make_config(base_url, **config),
        interaction=interaction,
        interactive=interactive,
        mode=mode,
        env={"OPENAI_API_KEY": "sk-test-key", **(env or {})},
    )
    CREATED.append(orchestrator)
    log = EventLog()
    orchestrator.subscribe(log)
    return orchestrator, log, interaction


async def close_created() -> None:
    """Releases what the orchestrators a test made hold (HTTP connections, MCP servers), on the loop that made them."""
    while CREATED:
        await CREATED.pop().aclose()


@pytest.fixture(autouse=True)
async def close_orchestrators() -> AsyncIterator[None]:
    """Releases the HTTP connections of the orchestrators a test made, on the loop that made them. Imported by the
    test folders and modules that make orchestrators (an imported fixture is theirs, autouse included)."""
    yield
    while CREATED:
        await CREATED.pop().aclose()


class FakeToolCallingProvider:
    """Answers ``calls`` requests at once with one call of ``tool`` each (its arguments made distinct, so no loop is
    seen), then with "done"; no HTTP. For measuring the orchestrator alone."""

    def __init__(self, tool: str, arguments: dict[str, Any], calls: int) -> None:
        self.tool, self.arguments, self.calls, self.answered = tool, arguments, calls, 0

    async def stream(self, request: Any) -> AsyncIterator[Any]:
        from engine.provider.base import FinishChunk, TextChunk, ToolCallChunk

        self.answered += 1
        if self.answered > self.calls:
            yield TextChunk("done")
            yield FinishChunk("stop")
            return
        arguments = {**self.arguments, "limit": self.answered + 1_000_000}
        yield ToolCallChunk(0, id=f"call_{self.answered}", name=self.tool, arguments=json.dumps(arguments))
        yield FinishChunk("tool_calls")

    async def aclose(self) -> None:
        pass

    async def list_models(self) -> list[str]:
        return ["fake"]


def record_calls(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[Any]:
    """Wraps ``owner.name`` (a one-argument function) so each call's argument is recorded in the returned list."""
    real = getattr(owner, name)
    arguments: list[Any] = []

    def recording(argument: Any) -> Any:
        arguments.append(argument)
        return real(argument)

    monkeypatch.setattr(owner, name, recording)
    return arguments
