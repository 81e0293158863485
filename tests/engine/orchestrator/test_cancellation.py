"""SPEC 14: Esc cancels the stream, a running bash group, an open approval; nothing is rolled back; the partial
text is kept and marked interrupted; the cancellation is returned as such, not as a wrapped error."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from engine.events import ToolCallExecuting, ToolCallFinished, ToolCallOutput, ToolStatus, TurnFinished
from engine.interaction import ApprovalDecision
from engine.modes import Mode
from engine.tools.bash import group_still_runs
from tests.support.fakes import FakeInteraction, make_orchestrator
from tests.support.scenario import reply, stall, text, tool_call
from tests.support.scripted_server import ScriptedServer


async def wait_for(predicate, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    """Polls until the condition holds; the timeout only guards against a hang, it measures nothing."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.01)


async def test_cancel_during_stream_keeps_partial_text_marked_interrupted(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(stall(after=reply(text("Partial answer so far")), seconds=30))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    task = asyncio.create_task(orch.run_input("explain"))
    await wait_for(lambda: "".join(getattr(e, "text", "") for e in log.events).endswith("so far"))
    assert orch.cancel() is True
    outcome = await task
    assert outcome.reason == "cancelled"
    last = orch.session.messages[-1]
    assert last.role == "assistant" and last.interrupted and last.content == "Partial answer so far"
    assert log.of(TurnFinished)[-1].reason == "cancelled"
    # The HTTP stream was aborted: the server saw the client leave.
    assert scripted_server.requests[0].client_closed.wait(5)
    # The session file keeps the interrupted text.
    saved = json.loads(orch.session.path.read_text())
    assert saved["messages"][-1]["interrupted"] is True
    assert not orch.busy


async def test_cancel_kills_running_bash_process_group(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("bash", command="echo $$ > pid.txt; sleep 30 & sleep 30; wait")))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.YOLO)
    task = asyncio.create_task(orch.run_input("run it"))
    await wait_for(lambda: bool(log.of(ToolCallExecuting)) and (tmp_path / "pid.txt").exists()
                   and (tmp_path / "pid.txt").read_text().strip() != "")
    pgid = int((tmp_path / "pid.txt").read_text())
    orch.cancel()
    outcome = await task
    assert outcome.reason == "cancelled"
    # Nothing of the group runs any more (killed orphans may linger as zombies until init reaps them).
    await wait_for(lambda: not group_still_runs(pgid))
    assert log.of(ToolCallFinished)[-1].status is ToolStatus.CANCELLED
    # The history stays valid for the API: the call has a result saying it was interrupted.
    last = orch.session.messages[-1]
    assert last.role == "tool" and "interrupted" in (last.content or "")


async def test_esc_in_approval_dialog_cancels_the_task(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(
        reply(tool_call("write", id="w1", path="a.txt", content="a"), tool_call("write", id="w2", path="b.txt", content="b"))
    )
    interaction = FakeInteraction([ApprovalDecision.CANCEL])
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, interaction=interaction)
    outcome = await orch.run_input("write two files")
    assert outcome.reason == "cancelled"
    assert len(interaction.approval_requests) == 1
    assert not (tmp_path / "a.txt").exists() and not (tmp_path / "b.txt").exists()
    # Both calls got an "interrupted" result; no further model call was made.
    tool_messages = [m for m in orch.session.messages if m.role == "tool"]
    assert [m.tool_call_id for m in tool_messages] == ["w1", "w2"]
    assert len(scripted_server.requests) == 1


async def test_cancel_while_approval_is_open_dismisses_it(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("write", path="a.txt", content="a")))
    interaction = FakeInteraction()
    interaction.hold = asyncio.Event()
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, interaction=interaction)
    task = asyncio.create_task(orch.run_input("write"))
    await wait_for(lambda: bool(interaction.approval_requests))
    orch.cancel()
    outcome = await task
    assert outcome.reason == "cancelled"
    assert not (tmp_path / "a.txt").exists()


async def test_cancelling_the_callers_task_propagates(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(stall(after=reply(text("x")), seconds=30))
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    task = asyncio.create_task(orch.run_input("explain"))
    await wait_for(lambda: len(scripted_server.requests) == 1)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    else:
        raise AssertionError("the caller's cancellation was swallowed")
    assert not orch.busy


async def test_cancel_when_idle_returns_false(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    assert orch.cancel() is False


async def test_work_done_before_cancel_stays_done(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(
        reply(tool_call("write", path="kept.txt", content="kept\n")),
        stall(after=reply(text("now thinking")), seconds=30),
    )
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.AUTO_EDIT)
    task = asyncio.create_task(orch.run_input("write then think"))
    await wait_for(lambda: len(scripted_server.requests) == 2)
    orch.cancel()
    assert (await task).reason == "cancelled"
    assert (tmp_path / "kept.txt").read_text() == "kept\n"


async def test_esc_keeps_what_a_running_command_printed_and_tells_the_model(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(
        reply(tool_call("bash", command="for i in 1 2 3; do echo line $i; done; echo oops >&2; sleep 30")),
        reply(text("I see it printed three lines.")),
    )
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.YOLO)
    task = asyncio.create_task(orch.run_input("run it"))
    printed = lambda: "".join(e.text for e in log.of(ToolCallOutput))  # noqa: E731
    await wait_for(lambda: "line 3" in printed() and "oops" in printed())
    orch.cancel()
    assert (await task).reason == "cancelled"
    finished = log.of(ToolCallFinished)[-1]
    assert finished.status is ToolStatus.CANCELLED
    assert "stdout:\nline 1\nline 2\nline 3" in finished.result["error"] and "stderr:\noops" in finished.result["error"]
    # The history the model reads next has the output with the interruption, in the call's own result.
    last = orch.session.messages[-1]
    assert last.role == "tool" and "interrupted" in (last.content or "") and "line 3" in (last.content or "")
    await orch.run_input("what happened?")
    sent = [m for m in scripted_server.requests[-1].body["messages"] if m["role"] == "tool"][-1]
    error = json.loads(sent["content"])["error"]
    assert error.startswith("interrupted") and "stdout:\nline 1\nline 2\nline 3" in error
