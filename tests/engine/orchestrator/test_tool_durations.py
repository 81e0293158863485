"""Issue 13 item 6: a tool's duration is its execution time, not the time the user took to approve it; a call that
never ran (refused) has no duration."""

from __future__ import annotations

import types
from pathlib import Path

import pytest

import engine.orchestrator.tool_chain as tool_chain
from engine.events import ToolCallFinished, ToolStatus
from engine.interaction import ApprovalDecision, ApprovalRequest
from tests.support.fakes import FakeInteraction, make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

APPROVAL_WAIT_S = 3.5


class SlowUser(FakeInteraction):
    """Takes 3.5 s (of the patched clock) to answer each approval."""

    def __init__(self, clock: types.SimpleNamespace, approvals: list[ApprovalDecision]) -> None:
        super().__init__(approvals)
        self.clock = clock

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        self.clock.now += APPROVAL_WAIT_S
        return await super().request_approval(request)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> types.SimpleNamespace:
    """The tool chain's clock: it moves only when the user "waits"; the write itself takes no time on it."""
    fake = types.SimpleNamespace(now=100.0)
    fake.perf_counter = lambda: fake.now
    monkeypatch.setattr(tool_chain, "time", fake)
    return fake


async def test_the_wait_for_approval_is_not_the_tools_duration(
    tmp_path: Path, scripted_server: ScriptedServer, clock: types.SimpleNamespace
) -> None:
    scripted_server.add(
        reply(tool_call("write", path="x.py", content="x = 1\n")),
        reply(tool_call("write", path="y.py", content="y = 1\n")),
        reply(text("done")),
    )
    interaction = SlowUser(clock, [ApprovalDecision.YES, ApprovalDecision.NO])
    orchestrator, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, interaction=interaction)
    await orchestrator.run_input("write x.py and y.py")
    approved, refused = log.of(ToolCallFinished)
    assert (approved.status, approved.duration_ms) == (ToolStatus.SUCCESS, 0.0)
    assert (refused.status, refused.duration_ms) == (ToolStatus.DENIED, None)
    entries = {entry.call_id: entry for entry in orchestrator.store.audit.entries(orchestrator.session_id)}
    assert entries[approved.call_id].duration_ms == 0.0
    assert entries[refused.call_id].duration_ms is None
