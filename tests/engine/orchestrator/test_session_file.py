"""SPEC 12: the session snapshot is rewritten after every message and is enough to replay a request."""

from __future__ import annotations

import json
from pathlib import Path

from openai import OpenAI

from engine.events import MessageAdded
from engine.modes import Mode
from tests.support.fakes import make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


async def test_snapshot_is_rewritten_after_every_message(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("list", path=".")), text("done"))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    counts: list[int] = []

    def on_event(event: object) -> None:
        if isinstance(event, MessageAdded):
            saved = json.loads(orch.session.path.read_text())
            counts.append(len([m for m in saved["messages"] if m["role"] != "system"]))

    orch.subscribe(on_event)
    await orch.run_input("list files")
    assert counts == [1, 2, 3, 4]
    assert orch.session.path == tmp_path / ".coder" / "sessions" / f"{orch.session_id}.json"
    assert not list(orch.session.path.parent.glob("*.tmp"))


async def test_snapshot_is_openai_form_and_replayable(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    scripted_server.add(
        reply(text("Let me read it."), tool_call("read", id="call_1", path="a.txt")),
        text("It says alpha."),
        text("replayed"),
    )
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.AUTO_EDIT)
    await orch.run_input("what is in a.txt")
    saved = json.loads(orch.session.path.read_text())
    assert saved["model"] == "scripted-model"
    assert saved["tools"] == scripted_server.requests[0].body["tools"]
    roles = [m["role"] for m in saved["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    call = saved["messages"][2]["tool_calls"][0]
    assert call == {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": '{"path": "a.txt"}'}}
    assert saved["messages"][3]["tool_call_id"] == "call_1"
    # Another program replays the second request from the file alone, through the official SDK.
    client = OpenAI(base_url=scripted_server.base_url, api_key="replay")
    replay_messages = saved["messages"][:4]
    answer = client.chat.completions.create(model=saved["model"], messages=replay_messages, tools=saved["tools"])
    assert answer.choices[0].message.content == "replayed"
    assert scripted_server.requests[2].body["messages"] == scripted_server.requests[1].body["messages"]


async def test_api_key_never_reaches_the_session_file(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("hi"))
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("hello")
    assert scripted_server.requests[0].headers["authorization"] == "Bearer sk-test-key"
    for path in (tmp_path / ".coder").rglob("*"):
        if path.is_file():
            assert b"sk-test-key" not in path.read_bytes()
