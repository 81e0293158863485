"""Each pipeline step of SPEC 3 alone, over an explicit TurnState, against the scripted server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.errors import ProviderError
from engine.events import Notice, ReasoningDelta, TextDelta, UsageUpdated
from engine.messages import FunctionCall, Message, ToolCall
from engine.modes import Mode
from engine.orchestrator.turn import TurnState, chat_step, persist_step, prepare_turn_state, tool_loop_step
from tests.support.fakes import make_orchestrator
from tests.support.scenario import broken, error, reasoning, reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


def state(text: str = "hello") -> TurnState:
    return TurnState(turn_id="t1", user_text=text)


async def test_prepare_turn_state_appends_user_message_and_system_prompt(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.PLAN)
    deps = orch.turn_deps()
    await prepare_turn_state(state("look at things"), deps)
    assert deps.session.messages == (Message.user("look at things"),)
    prompt = deps.session.system_prompt
    assert "Mode: plan" in prompt
    assert str(tmp_path.resolve()) in prompt
    assert "Git: not a repository" in prompt


async def test_prepare_turn_state_attaches_mentioned_files(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("print('hi')\n")
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    deps = orch.turn_deps()
    await prepare_turn_state(state("explain @src/app.py, and mail me@example.com about @nothing-here"), deps)
    content = deps.session.messages[0].content or ""
    assert content.startswith("explain @src/app.py, and mail me@example.com")
    assert '<file path="src/app.py">\nprint(\'hi\')\n\n</file>' in content
    assert content.count("<file") == 1


async def test_prepare_turn_state_refuses_mentions_outside_workspace(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    deps = orch.turn_deps()
    await prepare_turn_state(state("read @../../etc/passwd"), deps)
    assert "<file" not in (deps.session.messages[0].content or "")
    assert any("not attached" in n.text for n in log.of(Notice))


async def test_chat_step_streams_deltas_and_appends_assistant_message(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(reasoning("hmm", field="reasoning"), text("answer"), tool_call("read", id="c1", path="x"), usage=(50, 7)))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    deps = orch.turn_deps()
    turn = state()
    message = await chat_step(turn, deps)
    assert turn.steps == 1
    assert message.content == "answer" and message.reasoning == "hmm"
    assert message.tool_calls == [ToolCall(id="c1", function=FunctionCall(name="read", arguments='{"path": "x"}'))]
    assert deps.session.messages[-1] == message
    assert "".join(e.text for e in log.of(TextDelta)) == "answer"
    assert "".join(e.text for e in log.of(ReasoningDelta)) == "hmm"
    assert log.of(UsageUpdated)[-1].prompt_tokens == 50


async def test_chat_step_broken_stream_keeps_partial_text(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(broken(after=reply(text("half an ans"))))
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    deps = orch.turn_deps()
    with pytest.raises(ProviderError):
        await chat_step(state(), deps)
    last = deps.session.messages[-1]
    assert last.interrupted and last.content == "half an ans"


async def test_chat_step_retries_and_announces_it(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(error(429, retry_after=0.05), text("after retry"))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    message = await chat_step(state(), orch.turn_deps())
    assert message.content == "after retry"
    assert any("retrying" in n.text for n in log.of(Notice))


async def test_tool_loop_step_appends_one_result_per_call_in_order(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    (tmp_path / "f.txt").write_text("x")
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.AUTO_EDIT)
    deps = orch.turn_deps()
    calls = [
        ToolCall(id="a", function=FunctionCall(name="read", arguments='{"path": "f.txt"}')),
        ToolCall(id="b", function=FunctionCall(name="edit", arguments=json.dumps({"path": "f.txt", "old_string": "x", "new_string": "y"}))),
    ]
    turn = state()
    orch.undo.begin_turn(turn.turn_id)  # the orchestrator does this around every turn
    await tool_loop_step(turn, deps, Message.assistant(None, calls))
    assert [m.tool_call_id for m in deps.session.messages] == ["a", "b"]
    assert turn.tool_calls == 2 and turn.edited_paths == ["f.txt"]
    assert (tmp_path / "f.txt").read_text() == "y"


async def test_persist_step_writes_the_snapshot(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    deps = orch.turn_deps()
    deps.session.append(Message.user("hello"))
    # The system prompt is rebuilt per turn without a message being added: only the final save records it.
    deps.session.system_prompt = "the final system prompt"
    await persist_step(state(), deps)
    saved = json.loads(deps.session.path.read_text())
    assert saved["messages"] == [
        {"role": "system", "content": "the final system prompt"},
        {"role": "user", "content": "hello"},
    ]
