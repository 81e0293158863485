"""ACP sessions beyond new and prompt (SPEC 24): session/list, resume and close, the model as a config option, the
client's MCP servers offering their tools, and session/load telling the user's own words with the diffs and plan."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from acp import RequestError, spawn_agent_process, text_block
from acp.schema import (
    AcceptElicitationResponse,
    AgentPlanUpdate,
    ToolCallProgress,
    ClientCapabilities,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    ToolCallStart,
    UserMessageChunk,
)

from tests.server.test_acp import REPO, ScriptedClient, agent, environment
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


async def test_list_resume_and_close(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("one"), text("two"), text("three"))
    client = ScriptedClient()
    async with agent(workspace, scripted_server, client) as conn:
        hello = await conn.initialize(protocol_version=1)
        capabilities = hello.agent_capabilities.session_capabilities
        assert capabilities.list is not None and capabilities.resume is not None and capabilities.close is not None
        first = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=first.session_id, prompt=[text_block("first request")])
        second = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=second.session_id, prompt=[text_block("second request")])
        listed = await conn.list_sessions(cwd=str(workspace))
        assert [s.session_id for s in listed.sessions] == [second.session_id, first.session_id]
        assert listed.sessions[1].title == "first request" and listed.sessions[1].cwd == str(workspace.resolve())
        await conn.close_session(session_id=first.session_id)
        with pytest.raises(RequestError):
            await conn.prompt(session_id=first.session_id, prompt=[text_block("closed?")])
        before = len(client.updates)
        await conn.resume_session(session_id=first.session_id, cwd=str(workspace), mcp_servers=[])
        assert not [u for _, u in client.updates[before:] if isinstance(u, UserMessageChunk)]  # no replay
        await conn.prompt(session_id=first.session_id, prompt=[text_block("again")])
    sent = scripted_server.requests[-1].body["messages"]
    assert [m["content"] for m in sent if m["role"] == "user"] == ["first request", "again"]


async def test_the_model_is_a_config_option(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("hi"))
    client = ScriptedClient()
    async with agent(workspace, scripted_server, client) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        [option] = session.config_options
        assert (option.id, option.current_value) == ("model", "scripted-model")
        changed = await conn.set_config_option(config_id="model", session_id=session.session_id,
                                               value="other-model")
        assert changed.config_options[0].current_value == "other-model"
        assert "other-model" in {o.value for o in changed.config_options[0].options}
        await conn.prompt(session_id=session.session_id, prompt=[text_block("hello")])
        with pytest.raises(RequestError):
            await conn.set_config_option(config_id="colour", session_id=session.session_id, value="red")
    assert scripted_server.requests[-1].body["model"] == "other-model"


async def test_the_clients_mcp_server_offers_its_tools(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("mcp__broken__echo", id="e", text="from zed")), text("echoed"))
    broken = {"name": "broken", "command": sys.executable, "args": ["-m", "tests.engine.mcp.broken_server"],
              "env": [{"name": "PYTHONPATH", "value": str(REPO)}]}
    client = ScriptedClient(answers=["allow_once"])
    async with agent(workspace, scripted_server, client) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[broken])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("echo it")])
        with pytest.raises(RequestError):
            await conn.new_session(cwd=str(workspace), mcp_servers=[{"name": "", "command": "x", "args": [],
                                                                     "env": []}])
    assert "mcp__broken__echo" in {t["function"]["name"] for t in scripted_server.requests[0].body["tools"]}
    result = [m for m in scripted_server.requests[1].body["messages"] if m["role"] == "tool"][0]
    assert "echo: from zed" in result["content"]


async def test_load_replays_the_users_words_the_diff_and_the_plan(workspace: Path, scripted_server: ScriptedServer) -> None:
    (workspace / "notes.md").write_text("remember the milk\n")
    todos = [{"id": "1", "content": "fix add", "status": "completed"}]
    scripted_server.add(
        reply(tool_call("todowrite", id="t", todos=todos),
              tool_call("edit", id="e", path="calc.py", old_string="a - b", new_string="a + b")),
        text("Fixed."),
    )
    first = ScriptedClient(answers=["allow_once"])
    async with agent(workspace, scripted_server, first) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.set_session_mode(session_id=session.session_id, mode_id="auto-edit")
        await conn.prompt(session_id=session.session_id, prompt=[text_block("fix add, see @notes.md")])
    stored = scripted_server.requests[0].body["messages"][-1]["content"]
    assert "<file path=" in stored  # what the model got: the attached file

    later = ScriptedClient()
    async with agent(workspace, scripted_server, later) as conn:
        await conn.load_session(cwd=str(workspace), session_id=session.session_id, mcp_servers=[])
    assert [u.content.text for u in later.of(UserMessageChunk)] == ["fix add, see @notes.md"]
    edit = next(u for u in later.of(ToolCallStart) if u.tool_call_id == "e")
    [diff] = [c for c in edit.content if c.type == "diff"]
    # the hunk's two sides, context included (the file may have changed since)
    assert (diff.old_text, diff.new_text) == ("def add(a, b):\n    return a - b", "def add(a, b):\n    return a + b")
    assert diff.path == str((workspace / "calc.py").resolve())
    [plan] = later.of(AgentPlanUpdate)
    assert [(e.content, e.status) for e in plan.entries] == [("fix add", "completed")]


class FormFillingClient(ScriptedClient):
    """An editor that can show MCP forms: fills in every one it is shown."""

    def __init__(self, content: dict[str, object], **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.content = content
        self.forms: list[tuple[str, object]] = []

    async def create_elicitation(self, message: str, mode: object, **kwargs: object) -> object:
        self.forms.append((message, mode))
        return AcceptElicitationResponse(action="accept", content=self.content)


async def test_an_mcp_servers_form_goes_to_the_editor_that_can_show_it(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    asking = {"name": "asking", "command": sys.executable, "args": ["-m", "tests.engine.mcp.asking_server"],
              "env": [{"name": "PYTHONPATH", "value": str(REPO)}]}
    for can_show, expected in ((True, "accepted: "), (False, "the user chose decline")):
        scripted_server.add(reply(tool_call("mcp__asking__signup")), text("ok"))
        client = FormFillingClient({"name": "Ada", "age": 36}, answers=["allow_once"])
        capabilities = ClientCapabilities(elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities()))
        # elicitation/create is still unstable in the SDK: a client that shows forms turns the unstable part on
        async with spawn_agent_process(
            client, sys.executable, "-m", "coder_tui", "acp", env=environment(workspace, scripted_server),
            cwd=workspace, use_unstable_protocol=True,
        ) as (conn, _):
            await conn.initialize(protocol_version=1, client_capabilities=capabilities if can_show else None)
            session = await conn.new_session(cwd=str(workspace), mcp_servers=[asking])
            await conn.prompt(session_id=session.session_id, prompt=[text_block("sign me up")])
        result = [m for m in scripted_server.requests[-1].body["messages"] if m["role"] == "tool"][-1]
        assert expected in result["content"], client.text()
        if can_show:
            [(message, mode)] = client.forms
            assert message == "asking: Sign up for the service"
            assert set(mode.requested_schema.properties) == {"name", "age", "plan", "newsletter"}
            said = json.loads(result["content"])["content"].removeprefix("accepted: ")
            assert json.loads(said) == {"name": "Ada", "age": 36, "plan": "free", "newsletter": False}
        else:
            assert client.forms == [] and "cannot show a form" in client.text()


async def test_an_mcp_calls_progress_is_a_tool_call_update(workspace: Path, scripted_server: ScriptedServer) -> None:
    asking = {"name": "asking", "command": sys.executable, "args": ["-m", "tests.engine.mcp.asking_server"],
              "env": [{"name": "PYTHONPATH", "value": str(REPO)}]}
    scripted_server.add(reply(tool_call("mcp__asking__count", id="c")), text("Counted."))
    client = ScriptedClient(answers=["allow_once"])
    async with agent(workspace, scripted_server, client) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[asking])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("count")])
    said = [c.content.text for u in client.of(ToolCallProgress) if u.tool_call_id == "c" and u.status == "in_progress"
            for c in u.content or [] if c.type == "content"]
    assert said == ["1/3 (33%) step 1", "2/3 (67%) step 2", "3/3 (100%) step 3"]


async def test_an_mcp_servers_sampling_is_a_permission_request(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    asking = {"name": "asking", "command": sys.executable, "args": ["-m", "tests.engine.mcp.asking_server"],
              "env": [{"name": "PYTHONPATH", "value": str(REPO)}]}
    scripted_server.add(reply(tool_call("mcp__asking__summarize", id="s", text="a cat story")), text("A cat."),
                        text("Done."))
    client = ScriptedClient(answers=["allow_once", "allow_once"])
    async with agent(workspace, scripted_server, client) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[asking])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("summarize")])
    titles = [call.title for call, _ in client.permission_requests]
    assert titles[0].startswith("mcp__asking__summarize") and titles[1].startswith("mcp__asking__sampling")
    body = client.permission_requests[1][0].content[0].content.text
    assert "Summarize: a cat story" in body
    result = [m for m in scripted_server.requests[-1].body["messages"] if m["role"] == "tool"][-1]
    assert "said: A cat." in result["content"]


async def test_a_session_on_a_worktree_of_its_own(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    from tests.engine.orchestrator.test_agents import git, make_repo

    repo = make_repo(tmp_path / "repo")
    scripted_server.add(reply(tool_call("write", path="zed.txt", content="zed\n")), text("written"))
    client = ScriptedClient(answers=["allow_once"])
    async with agent(repo, scripted_server, client) as conn:
        session = await conn.new_session(cwd=str(repo), mcp_servers=[], **{"coder.worktree": "zed"})
        done = await conn.prompt(session_id=session.session_id, prompt=[text_block("write zed.txt")])
        with pytest.raises(RequestError):
            await conn.new_session(cwd=str(tmp_path), mcp_servers=[], **{"coder.worktree": "elsewhere"})

    tree = repo / ".coder" / "worktrees" / "zed"
    assert session.field_meta == {"coder.worktree": {"branch": "coder/zed", "path": str(tree)}}
    assert done.stop_reason == "end_turn"
    assert (tree / "zed.txt").read_text() == "zed\n"
    assert not (repo / "zed.txt").exists()
    assert git(repo, "branch", "--list", "--format=%(refname:short)", "coder/*").split() == ["coder/zed"]
