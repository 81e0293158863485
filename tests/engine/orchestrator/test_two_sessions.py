"""Two sessions run turns at the same time in one orchestrator (SPEC 1, 2026-12-07): each is one ``SessionRuntime``
value, every event is tagged with its session, and neither sees the other's messages, todos, undo stack or
approvals."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from engine.events import Event, MessageAdded, TodosChanged, ToolCallAwaitingApproval
from engine.interaction import ApprovalDecision, ApprovalRequest
from tests.support.fakes import FakeInteraction, make_orchestrator
from tests.support.scenario import ReplyLike, reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


def name_of(body: dict[str, Any]) -> str:
    """Which session a request comes from: its request names it."""
    request = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return "alpha" if "alpha" in request else "beta"


def answer(body: dict[str, Any]) -> ReplyLike:
    """Per session: a todo list and a write (which asks), then a text once the write's result came back."""
    name = name_of(body)
    if body["messages"][-1]["role"] == "user":
        return reply(
            tool_call("todowrite", todos=[{"id": "1", "content": f"{name} task", "status": "in_progress"}]),
            tool_call("write", path=f"{name}.txt", content=f"{name}\n"),
        )
    return reply(text(f"{name} done"))


class HeldInteraction(FakeInteraction):
    """Holds every approval until both sessions wait on one; "always" for alpha's, "yes" for beta's."""

    def __init__(self) -> None:
        super().__init__()
        self.hold = asyncio.Event()

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        self.approval_requests.append(request)
        if len(self.approval_requests) == 2:
            self.hold.set()
        await self.hold.wait()
        return ApprovalDecision.ALWAYS if "alpha" in request.key_argument else ApprovalDecision.YES


async def test_two_sessions_run_turns_at_once_and_see_only_their_own(tmp_path: Path) -> None:
    with ScriptedServer(fallback=answer) as server:
        interaction = HeldInteraction()
        orchestrator, _, _ = make_orchestrator(tmp_path, server.base_url, interaction=interaction)
        tagged: list[tuple[Event, str | None]] = []
        orchestrator.subscribe_tagged(lambda event, session_id: tagged.append((event, session_id)))
        alpha = orchestrator.runtime
        beta = orchestrator.open_session()

        outcomes = await asyncio.wait_for(
            asyncio.gather(
                orchestrator.run_input("alpha: write your file"),
                orchestrator.run_input("beta: write your file", session_id=beta.id),
            ),
            timeout=30,
        )
        # Alpha answered "always" for its write, beta "yes": beta's next write asks again, alpha's does not.
        await orchestrator.run_input("alpha: write it again")
        await orchestrator.run_input("beta: write it again", session_id=beta.id)

    assert [outcome.reason for outcome in outcomes] == ["completed", "completed"]
    # Both waited on an approval at the same time (the turns ran concurrently); then only beta's asked again.
    assert [r.key_argument for r in interaction.approval_requests[2:]] == ["beta.txt"]
    for runtime, mine, other in ((alpha, "alpha", "beta"), (beta, "beta", "alpha")):
        contents = " ".join(m.content or "" for m in runtime.session.messages)
        assert mine in contents and other not in contents
        assert [t.content for t in runtime.tool_context.todos.items] == [f"{mine} task"]
        assert (tmp_path / f"{mine}.txt").read_text() == f"{mine}\n"
        assert [Path(c.path).name for c in runtime.undo.session_changes()] == [f"{mine}.txt"]
        assert list(runtime.undo.files_changed().values()) == [1, 1]
        events = [event for event, session_id in tagged if session_id == runtime.id]
        added = " ".join(e.message.content or "" for e in events if isinstance(e, MessageAdded))
        assert mine in added and other not in added
        assert {t.content for e in events if isinstance(e, TodosChanged) for t in e.todos} == {f"{mine} task"}
        asked = {e.call_id for e in events if isinstance(e, ToolCallAwaitingApproval)}
        assert {r.key_argument for r in interaction.approval_requests if r.call_id in asked} == {f"{mine}.txt"}
    assert alpha.policy.session_allowances and not beta.policy.session_allowances
    # The session in view stayed alpha.
    assert orchestrator.session_id == alpha.id
