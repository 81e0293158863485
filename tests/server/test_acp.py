"""`coder-tui acp` (SPEC 24) as an editor drives it: the real command as a subprocess, the SDK's client side, the
scripted OpenAI server behind. A streamed prompt, a permission allowed and one rejected, a cancel mid-stream,
``session/load`` of a stored session, a mode change, and a malformed request the server survives."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process, text_block
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AllowedOutcome,
    AvailableCommandsUpdate,
    CurrentModeUpdate,
    DeniedOutcome,
    RequestPermissionResponse,
    ToolCallProgress,
    ToolCallStart,
    UserMessageChunk,
)

from engine.orchestrator.tool_chain import REFUSED_AND_STOPPED
from tests.support.scenario import reply, stall, text, tool_call
from tests.support.scripted_server import ScriptedServer

REPO = Path(__file__).resolve().parents[2]


class ScriptedClient:
    """The editor: records every update; answers permission requests from a list of option ids."""

    def __init__(self, answers: list[str] | None = None) -> None:
        self.updates: list[tuple[str, Any]] = []
        self.permission_requests: list[Any] = []
        self.answers = list(answers or [])
        self.update_seen = asyncio.Event()

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any) -> Any:
        self.permission_requests.append((tool_call, [option.option_id for option in options]))
        answer = self.answers.pop(0) if self.answers else "cancelled"
        if answer == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=answer))

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))
        self.update_seen.set()

    def of(self, kind: type) -> list[Any]:
        return [update for _, update in self.updates if isinstance(update, kind)]

    def text(self) -> str:
        return "".join(u.content.text for u in self.of(AgentMessageChunk))

    def on_connect(self, conn: Any) -> None:
        pass


def environment(workspace: Path, server: ScriptedServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CODER_"))}
    env.update(
        OPENAI_BASE_URL=server.base_url,
        OPENAI_API_KEY="sk-acp-test",
        CODER_MODEL="scripted-model",
        XDG_CONFIG_HOME=str(workspace.parent / "xdg"),
        PYTHONPATH=str(REPO),
    )
    return env


@contextlib.asynccontextmanager
async def agent(workspace: Path, server: ScriptedServer, client: ScriptedClient) -> AsyncIterator[Any]:
    async with spawn_agent_process(
        client, sys.executable, "-m", "coder_tui", "acp", env=environment(workspace, server), cwd=workspace
    ) as (conn, process):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        yield conn
        assert process.returncode is None, "the agent died"


async def test_initialize_new_session_and_a_streamed_prompt(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("Hello from the model", chunk=3)))
    client = ScriptedClient()
    async with spawn_agent_process(
        client, sys.executable, "-m", "coder_tui", "acp", env=environment(workspace, scripted_server), cwd=workspace
    ) as (conn, _):
        hello = await conn.initialize(protocol_version=PROTOCOL_VERSION)
        assert hello.agent_capabilities.load_session is True
        assert hello.agent_info.name == "coder-tui"
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert session.modes.current_mode_id == "default"
        assert {m.id for m in session.modes.available_modes} == {"plan", "default", "auto-edit", "yolo"}
        done = await conn.prompt(session_id=session.session_id, prompt=[text_block("say hello")])
    assert done.stop_reason == "end_turn"
    assert client.text() == "Hello from the model"
    commands = client.of(AvailableCommandsUpdate)[0].available_commands
    assert "help" in {command.name for command in commands}
    assert scripted_server.requests[-1].body["messages"][-1]["content"] == "say hello"


async def test_a_tool_call_that_needs_permission_allowed_then_rejected(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    fixed = "def add(a, b):\n    return a + b\n"
    scripted_server.add(
        reply(tool_call("read", id="r1", path="calc.py")),
        reply(tool_call("edit", id="e1", path="calc.py", old_string="a - b", new_string="a + b")),
        text("Fixed."),
        reply(tool_call("bash", id="b1", command="touch made-by-bash.txt")),
        text("What should I do instead?"),
    )
    client = ScriptedClient(answers=["allow_once", "reject_once"])
    async with agent(workspace, scripted_server, client) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        first = await conn.prompt(session_id=session.session_id, prompt=[text_block("fix add")])
        second = await conn.prompt(session_id=session.session_id, prompt=[text_block("make a file")])
        # A rejection stops the turn (SPEC 5): the model is asked nothing more until the next prompt.
        assert len(scripted_server.requests) == 4
        third = await conn.prompt(session_id=session.session_id, prompt=[text_block("leave it")])
    assert first.stop_reason == second.stop_reason == third.stop_reason == "end_turn"
    assert (workspace / "calc.py").read_text() == fixed
    assert not (workspace / "made-by-bash.txt").exists()

    (edit_request, edit_options), (bash_request, _) = client.permission_requests
    assert edit_request.tool_call_id == "e1" and edit_request.kind == "edit"
    assert edit_options[0] == "allow_once" and edit_options[-1] == "reject_once"
    assert bash_request.tool_call_id == "b1" and bash_request.kind == "execute"

    starts = {u.tool_call_id: u for u in client.of(ToolCallStart)}
    assert starts["r1"].kind == "read" and starts["r1"].locations[0].path == str(workspace / "calc.py")
    finals = {u.tool_call_id: u for u in client.of(ToolCallProgress) if u.status in ("completed", "failed")}
    assert finals["r1"].status == "completed" and finals["e1"].status == "completed"
    (diff,) = finals["e1"].content
    assert diff.type == "diff" and diff.path == str(workspace / "calc.py")
    assert diff.old_text == "def add(a, b):\n    return a - b\n" and diff.new_text == fixed
    assert finals["b1"].status == "failed"
    refused = [m for m in scripted_server.requests[-1].body["messages"] if m["role"] == "tool"][-1]
    assert json.loads(refused["content"]) == {"ok": False, "error": REFUSED_AND_STOPPED}


async def test_cancel_mid_stream_ends_the_prompt_as_cancelled(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(stall(after=text("thinking about it"), seconds=60), text("after the cancel"))
    client = ScriptedClient()
    async with agent(workspace, scripted_server, client) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        running = asyncio.create_task(conn.prompt(session_id=session.session_id, prompt=[text_block("think")]))
        while "thinking about it" not in client.text():
            await asyncio.wait_for(client.update_seen.wait(), timeout=30)
            client.update_seen.clear()
        await conn.cancel(session_id=session.session_id)
        done = await asyncio.wait_for(running, timeout=30)
        assert done.stop_reason == "cancelled"
        again = await conn.prompt(session_id=session.session_id, prompt=[text_block("go on")])
        assert again.stop_reason == "end_turn"
    assert client.text().endswith("after the cancel")
    assert scripted_server.requests[0].client_closed.wait(timeout=10)


async def test_load_session_replays_the_stored_conversation(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(text("Looking."), tool_call("read", id="r1", path="calc.py")), text("It subtracts."))
    first = ScriptedClient()
    async with agent(workspace, scripted_server, first) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("what does add do?")])
    stored_id = session.session_id

    later = ScriptedClient()
    scripted_server.add(text("Still subtracts."))
    async with agent(workspace, scripted_server, later) as conn:
        loaded = await conn.load_session(cwd=str(workspace), session_id=stored_id, mcp_servers=[])
        assert loaded.modes.current_mode_id == "default"
        assert [u.content.text for u in later.of(UserMessageChunk)] == ["what does add do?"]
        assert later.text() == "Looking.It subtracts."
        (call,) = later.of(ToolCallStart)
        assert (call.tool_call_id, call.status, call.kind) == ("r1", "completed", "read")
        await conn.prompt(session_id=stored_id, prompt=[text_block("and now?")])
        with pytest.raises(RequestError):
            await conn.load_session(cwd=str(workspace), session_id="no-such-session", mcp_servers=[])
    sent = scripted_server.requests[-1].body["messages"]
    assert [m["content"] for m in sent if m["role"] == "user"][-2:] == ["what does add do?", "and now?"]


async def test_mode_change_is_applied_and_announced(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("write", id="w1", path="new.py", content="x = 1\n")), text("Blocked."))
    client = ScriptedClient()
    async with agent(workspace, scripted_server, client) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.set_session_mode(session_id=session.session_id, mode_id="plan")
        assert [u.current_mode_id for u in client.of(CurrentModeUpdate)] == ["plan"]
        await conn.prompt(session_id=session.session_id, prompt=[text_block("write new.py")])
        with pytest.raises(RequestError):
            await conn.set_session_mode(session_id=session.session_id, mode_id="reckless")
    assert not (workspace / "new.py").exists()
    assert client.permission_requests == []
    result = [m for m in scripted_server.requests[-1].body["messages"] if m["role"] == "tool"][-1]
    assert "disabled in plan mode" in json.loads(result["content"])["error"]


async def test_todos_become_a_plan(workspace: Path, scripted_server: ScriptedServer) -> None:
    todos = [{"id": "1", "content": "read calc.py", "status": "completed"}, {"id": "2", "content": "fix add"}]
    scripted_server.add(reply(tool_call("todowrite", todos=todos)), text("Planned."))
    client = ScriptedClient()
    async with agent(workspace, scripted_server, client) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("plan it")])
    (plan,) = client.of(AgentPlanUpdate)
    assert [(e.content, e.status) for e in plan.entries] == [("read calc.py", "completed"), ("fix add", "pending")]


async def test_a_malformed_request_gets_an_error_and_the_server_keeps_running(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(text("still here"))
    env = environment(workspace, scripted_server)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "coder_tui", "acp", env=env, cwd=workspace,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None

    async def call(payload: str) -> dict[str, Any]:
        process.stdin.write(payload.encode() + b"\n")
        await process.stdin.drain()
        while True:
            line = await asyncio.wait_for(process.stdout.readline(), timeout=60)
            message = json.loads(line)
            if "id" in message and "method" not in message:
                return message

    try:
        broken = await call('{"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": 42}}')
        assert broken["error"]["code"] == -32602
        # A line that is not JSON has no id to answer (the SDK logs and drops it): the next request still works.
        process.stdin.write(b"{this is not json\n")
        unknown = await call('{"jsonrpc": "2.0", "id": 3, "method": "session/frobnicate", "params": {}}')
        assert unknown["error"]["code"] == -32601
        hello = await call(json.dumps({"jsonrpc": "2.0", "id": 4, "method": "initialize",
                                       "params": {"protocolVersion": PROTOCOL_VERSION}}))
        assert hello["result"]["agentInfo"]["name"] == "coder-tui"
    finally:
        process.stdin.close()
        await asyncio.wait_for(process.wait(), timeout=30)
    assert process.returncode == 0


@pytest.mark.parametrize("redirected", ["stdout", "stdin"])
def test_acp_redirected_to_a_file_says_it_needs_pipes(
    workspace: Path, scripted_server: ScriptedServer, redirected: str
) -> None:
    """Issue 43 item 13: ``coder-tui acp > file`` (or ``< file``) ends with a line saying why, not a traceback."""
    target = workspace.parent / "acp.out"
    target.write_text("")
    with target.open("r+b") as file:
        done = subprocess.run(
            [sys.executable, "-m", "coder_tui", "acp"], env=environment(workspace, scripted_server), cwd=workspace,
            stdin=file if redirected == "stdin" else subprocess.DEVNULL,
            stdout=file if redirected == "stdout" else subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, timeout=60,
        )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip() == (
        f"coder-tui acp: {redirected} is a file, not a pipe: the Agent Client Protocol runs over pipes, which an "
        "editor (Zed, a JetBrains IDE, Toad) gives the agent it starts"
    )
