"""SPEC 12/14, issue 5: a process killed with SIGKILL at any point of a scripted turn (mid-stream, mid-tool,
awaiting approval, between calls) loses no committed message, and the resumed history is valid for the API."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.events import ToolCallFinished, ToolStatus
from engine.interaction import ApprovalDecision
from engine.messages import Message
from engine.modes import Mode
from engine.storage.store import Store
from tests.support.fakes import FakeInteraction, make_orchestrator
from tests.support.scenario import ReplyLike, reply, stall, text, tool_call
from tests.support.scripted_server import ScriptedServer

REPO = Path(__file__).resolve().parents[3]


def run_until(workspace: Path, server: ScriptedServer, mode: str, request: str, ready: Callable[[], bool]) -> None:
    """Starts the driver, waits until ``ready()`` holds, then kills it with SIGKILL."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}  # the user config folder: the autouse temp one, as this process uses
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.crash_driver", str(workspace), server.base_url, mode, request],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while not ready():
            if process.poll() is not None:
                raise AssertionError(f"the driver ended early: {process.stderr.read().decode()}")  # type: ignore[union-attr]
            if time.monotonic() > deadline:
                raise AssertionError("the kill point was never reached")
            time.sleep(0.02)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()


def stored(workspace: Path) -> tuple[str, list[Message]]:
    store = Store.open(workspace, environ={})
    try:
        session_id = store.sessions.latest_id()
        assert session_id is not None
        return session_id, store.conversation.load(session_id).messages
    finally:
        store.close()


def assert_valid_for_the_api(messages: list[Message] | tuple[Message, ...]) -> None:
    """Every assistant tool call is answered by a tool message before anything else follows."""
    position = 0
    while position < len(messages):
        message = messages[position]
        position += 1
        if message.role == "assistant" and message.tool_calls:
            answered = set()
            while position < len(messages) and messages[position].role == "tool":
                answered.add(messages[position].tool_call_id)
                position += 1
            assert {call.id for call in message.tool_calls} <= answered, messages
        else:
            assert message.role != "tool", f"a tool message with no call before it: {message}"


def assert_nothing_committed_was_lost(server: ScriptedServer, messages: list[Message]) -> None:
    """What the client last sent the server had been committed before it was sent: it must all be there."""
    last = [m for m in server.requests[-1].body["messages"] if m["role"] != "system"]
    assert [m.to_wire() for m in messages[: len(last)]] == last


async def resume(workspace: Path, server: ScriptedServer, *replies: ReplyLike, approvals=()):  # type: ignore[no-untyped-def]
    server.add(*replies)
    orch, log, interaction = make_orchestrator(
        workspace, server.base_url, mode=Mode.DEFAULT, interaction=FakeInteraction(approvals)
    )
    outcome = await orch.run_input("/resume --last")
    return orch, log, interaction, outcome


@pytest.mark.parametrize("split", [3, 40, 77])
async def test_killed_mid_stream(tmp_path: Path, scripted_server: ScriptedServer, split: int) -> None:
    answer = "The parser reads tokens, builds a tree, then the checker walks it and reports each error."
    scripted_server.add(stall(after=reply(text(answer[:split], chunk=split)), seconds=60))
    run_until(tmp_path, scripted_server, "default", "explain", lambda: len(scripted_server.requests) == 1)
    session_id, messages = stored(tmp_path)
    assert_nothing_committed_was_lost(scripted_server, messages)
    assert [m.role for m in messages] == ["user"]
    orch, _, _, outcome = await resume(tmp_path, scripted_server)
    assert outcome.ok and orch.session_id == session_id
    assert_valid_for_the_api(orch.session.messages)
    scripted_server.add(text("answer after resume"))
    assert (await orch.run_input("go on")).ok
    assert_valid_for_the_api(orch.session.messages)


async def test_killed_mid_tool_never_reruns_it(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(
        reply(tool_call("bash", id="c1", command="echo ran >> count.txt")),
        reply(tool_call("bash", id="c2", command="echo started > started.txt; sleep 60")),
    )
    run_until(tmp_path, scripted_server, "yolo", "run things", lambda: (tmp_path / "started.txt").exists())
    _, messages = stored(tmp_path)
    assert_nothing_committed_was_lost(scripted_server, messages)
    orch, _, _, outcome = await resume(tmp_path, scripted_server)
    assert outcome.ok
    history = orch.session.messages
    assert_valid_for_the_api(history)
    interrupted = json.loads(history[-1].content or "{}")
    assert history[-1].tool_call_id == "c2" and "interrupted" in interrupted["error"]
    assert (tmp_path / "count.txt").read_text() == "ran\n"  # the completed call was not run again


async def test_killed_awaiting_approval_asks_again_and_continues(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(
        reply(tool_call("write", id="w1", path="a.txt", content="a\n"), tool_call("write", id="w2", path="b.txt",
                                                                                   content="b\n")),
    )
    run_until(tmp_path, scripted_server, "default", "write two", lambda: (tmp_path / "approval-pending").exists())
    _, messages = stored(tmp_path)
    assert_nothing_committed_was_lost(scripted_server, messages)
    assert not (tmp_path / "a.txt").exists()
    orch, log, interaction, outcome = await resume(
        tmp_path, scripted_server, text("both written"), approvals=[ApprovalDecision.YES, ApprovalDecision.YES]
    )
    assert outcome.ok
    assert [r.call_id for r in interaction.approval_requests] == ["w1", "w2"]
    assert (tmp_path / "a.txt").read_text() == "a\n" and (tmp_path / "b.txt").read_text() == "b\n"
    assert orch.session.messages[-1].content == "both written"
    assert [f.status for f in log.of(ToolCallFinished)] == [ToolStatus.SUCCESS, ToolStatus.SUCCESS]
    assert_valid_for_the_api(orch.session.messages)


async def test_killed_between_calls_keeps_every_result(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(
        reply(tool_call("list", id="l1", path=".")),
        reply(tool_call("bash", id="b1", command="echo hi > done.txt")),
        stall(after=None, seconds=60),
    )
    run_until(tmp_path, scripted_server, "yolo", "look", lambda: len(scripted_server.requests) == 3)
    _, messages = stored(tmp_path)
    assert_nothing_committed_was_lost(scripted_server, messages)
    assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant", "tool"]
    orch, _, _, outcome = await resume(tmp_path, scripted_server)
    assert outcome.ok
    assert_valid_for_the_api(orch.session.messages)
    assert len(orch.session.messages) == 5
