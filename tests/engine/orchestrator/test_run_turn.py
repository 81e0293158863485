"""SPEC 3 and 5: a turn against the scripted server, through the real openai SDK over HTTP."""

from __future__ import annotations

import json
from pathlib import Path

from engine.events import (
    MessageAdded,
    TextDelta,
    ToolCallFinished,
    ToolCallScheduled,
    ToolStatus,
    TurnFinished,
    TurnStarted,
)
from engine.interaction import ApprovalAnswer, ApprovalDecision
from engine.modes import Mode
from engine.orchestrator.steps.tools import NOT_RUN_AFTER_REFUSAL
from engine.orchestrator.tool_chain import REFUSED_AND_STOPPED
from tests.support.fakes import FakeInteraction, make_orchestrator
from tests.support.scenario import raw_tool_call, reasoning, reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


def tool_results(server: ScriptedServer, request_index: int) -> list[dict]:
    """The `tool` messages the client sent in one request, their content parsed."""
    messages = server.requests[request_index].body["messages"]
    return [dict(m, content=json.loads(m["content"])) for m in messages if m["role"] == "tool"]


async def test_turn_text_answer_completes(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(reasoning("thinking"), text("Hello there, world.")))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    outcome = await orch.run_input("hi")
    assert outcome.reason == "completed" and outcome.ok
    assert outcome.text == "Hello there, world."
    assert "".join(e.text for e in log.of(TextDelta)) == "Hello there, world."
    assert [m.role for m in orch.session.messages] == ["user", "assistant"]
    assert orch.session.messages[1].reasoning == "thinking"
    started, finished = log.of(TurnStarted), log.of(TurnFinished)
    assert len(started) == 1 and finished[-1].reason == "completed"
    request = scripted_server.requests[0].body
    assert request["model"] == "scripted-model"
    assert request["stream"] is True
    assert request["messages"][0]["role"] == "system"
    assert request["messages"][-1] == {"role": "user", "content": "hi"}
    assert {t["function"]["name"] for t in request["tools"]} >= {"read", "write", "edit", "bash", "grep"}


async def test_turn_runs_tool_calls_and_sends_tool_messages(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    (tmp_path / "a.txt").write_text("alpha\nbeta\n")
    scripted_server.add(
        reply(text("Reading."), tool_call("read", id="call_r", path="a.txt"), tool_call("list", id="call_l", path=".")),
        text("It says alpha."),
    )
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    outcome = await orch.run_input("what is in a.txt?")
    assert outcome.ok
    results = tool_results(scripted_server, 1)
    assert [r["tool_call_id"] for r in results] == ["call_r", "call_l"]
    assert all(r["content"]["ok"] for r in results)
    assert "alpha" in json.dumps(results[0]["content"])
    # The assistant message with its calls goes back exactly as the model sent it.
    assistant = scripted_server.requests[1].body["messages"][-3]
    assert assistant["role"] == "assistant"
    assert [c["id"] for c in assistant["tool_calls"]] == ["call_r", "call_l"]
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"path": "a.txt"}
    finished = log.of(ToolCallFinished)
    assert [f.status for f in finished] == [ToolStatus.SUCCESS, ToolStatus.SUCCESS]
    assert [f.key_argument for f in finished][0] == "a.txt"


async def test_turn_step_limit(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(*[reply(tool_call("list", path=".")) for _ in range(3)])
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, max_steps=3)
    outcome = await orch.run_input("loop forever")
    assert outcome.reason == "step_limit"
    assert "step limit reached" in (outcome.error or "")
    assert len(scripted_server.requests) == 3
    # The last tool result was still written: the history stays valid.
    assert orch.session.messages[-1].role == "tool"


async def test_invalid_json_arguments_are_returned_as_error_and_loop_goes_on(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(raw_tool_call("read", '{"path": "a.txt"', id="bad")), text("Sorry."))
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    outcome = await orch.run_input("read it")
    assert outcome.ok
    (result,) = tool_results(scripted_server, 1)
    assert result["content"]["ok"] is False
    assert "invalid JSON arguments for read" in result["content"]["error"]


async def test_unknown_tool_and_schema_errors_are_returned(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(
        reply(tool_call("teleport", where="mars"), tool_call("read", file="a.txt")),
        text("ok"),
    )
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("go")
    unknown, invalid = (r["content"] for r in tool_results(scripted_server, 1))
    assert unknown["ok"] is False and "unknown tool 'teleport'" in unknown["error"]
    assert invalid["ok"] is False and "invalid arguments for read" in invalid["error"] and "path" in invalid["error"]


async def test_plan_mode_blocks_write(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("write", path="new.txt", content="x")), text("I cannot write in plan mode."))
    orch, log, interaction = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.PLAN)
    await orch.run_input("create new.txt")
    assert not (tmp_path / "new.txt").exists()
    (result,) = tool_results(scripted_server, 1)
    assert result["content"]["ok"] is False
    assert "disabled in plan mode" in result["content"]["error"]
    assert interaction.approval_requests == []
    assert log.of(ToolCallFinished)[0].status is ToolStatus.DENIED


async def test_no_refuses_and_stops_the_turn(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    """SPEC 5: a plain "no" ends the turn: nothing more is requested, the calls after the refused one do not run,
    and the next request tells the model the user refused and stopped, with every call answered."""
    scripted_server.add(
        reply(tool_call("write", id="w1", path="new.txt", content="hello\n"), tool_call("bash", id="b1", command="ls")),
        text("What should I do instead?"),
    )
    interaction = FakeInteraction([ApprovalDecision.NO])
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, interaction=interaction)
    outcome = await orch.run_input("create new.txt")
    assert outcome.reason == "refused" and len(scripted_server.requests) == 1
    assert not (tmp_path / "new.txt").exists()
    (request,) = interaction.approval_requests
    assert request.tool == "write" and request.key_argument == "new.txt"
    assert request.preview is not None and "+hello" in request.preview
    # The call after the refused one is not run, and shown so.
    finished = [(event.call_id, event.status) for event in log.of(ToolCallFinished)]
    assert finished == [("w1", ToolStatus.DENIED), ("b1", ToolStatus.CANCELLED)]
    assert log.of(TurnFinished)[-1].reason == "refused"
    await orch.run_input("use notes.txt instead")
    told = {result["tool_call_id"]: result["content"] for result in tool_results(scripted_server, 1)}
    assert told == {
        "w1": {"ok": False, "error": REFUSED_AND_STOPPED},
        "b1": {"ok": False, "error": NOT_RUN_AFTER_REFUSAL},
    }
    assert scripted_server.requests[1].body["messages"][-1] == {"role": "user", "content": "use notes.txt instead"}


async def test_no_with_a_reason_goes_on_with_the_users_words(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("write", path="new.txt", content="hello\n")), text("Understood."))
    interaction = FakeInteraction([ApprovalAnswer(ApprovalDecision.NO, "write it to notes.txt")])
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, interaction=interaction)
    outcome = await orch.run_input("create new.txt")
    assert outcome.ok and outcome.text == "Understood."
    (result,) = tool_results(scripted_server, 1)
    assert result["content"] == {"ok": False, "error": "the user refused this call and says: write it to notes.txt"}


async def test_default_mode_write_approved_returns_diff(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("write", path="new.txt", content="hello\n")), text("Done."))
    orch, log, interaction = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("create new.txt")
    assert (tmp_path / "new.txt").read_text() == "hello\n"
    (finished,) = log.of(ToolCallFinished)
    assert finished.status is ToolStatus.SUCCESS
    assert finished.diff and "+hello" in finished.diff


async def test_headless_refuses_an_ask(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("bash", command="touch made.txt")), text("Could not."))
    orch, _, interaction = make_orchestrator(tmp_path, scripted_server.base_url, interactive=False)
    outcome = await orch.run_input("make a file")
    assert outcome.ok
    assert not (tmp_path / "made.txt").exists()
    (result,) = tool_results(scripted_server, 1)
    assert "non-interactive" in result["content"]["error"]
    assert interaction.approval_requests == []


async def test_auto_approve_ask_allows_without_asking(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("bash", command="touch made.txt")), text("Made."))
    orch, _, interaction = make_orchestrator(
        tmp_path, scripted_server.base_url, interactive=False, auto_approve_ask=True
    )
    await orch.run_input("make a file")
    assert (tmp_path / "made.txt").exists()
    assert interaction.approval_requests == []


async def test_yolo_mode_runs_bash_without_asking(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("bash", command="echo hi > out.txt")), text("ok"))
    orch, _, interaction = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.YOLO)
    await orch.run_input("write out.txt")
    assert (tmp_path / "out.txt").read_text() == "hi\n"
    assert interaction.approval_requests == []
    (result,) = tool_results(scripted_server, 1)
    assert result["content"]["exit_code"] == 0


async def test_tool_path_outside_workspace_is_refused(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("read", path="../../etc/passwd")), text("Not allowed."))
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.YOLO)
    await orch.run_input("read passwd")
    (result,) = tool_results(scripted_server, 1)
    assert result["content"]["ok"] is False
    assert "outside" in result["content"]["error"]


async def test_provider_error_ends_turn_readably(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    from tests.support.scenario import error

    scripted_server.add(error(401, "Incorrect API key provided"))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    outcome = await orch.run_input("hi")
    assert outcome.reason == "error"
    assert "authentication failed (401)" in (outcome.error or "")
    assert "\n" not in (outcome.error or "")
    assert log.of(TurnFinished)[-1].reason == "error"


async def test_no_model_configured_says_how(tmp_path: Path) -> None:
    from engine.config import Config
    from engine.orchestrator.orchestrator import Orchestrator

    orch = Orchestrator(workspace=tmp_path, config=Config(), interaction=FakeInteraction(), env={})
    outcome = await orch.run_input("hello")
    assert outcome.reason == "error"
    assert "OPENAI_API_KEY" in (outcome.error or "") and "OPENAI_BASE_URL" in (outcome.error or "")


async def test_messages_are_announced_in_order(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("list", path=".")), text("done"))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("list")
    roles = [e.message.role for e in log.of(MessageAdded)]
    assert roles == ["user", "assistant", "tool", "assistant"]
    scheduled = log.of(ToolCallScheduled)
    assert scheduled[0].tool == "list"
