"""Real MCP servers through the manager: the reference time and git servers over stdio, an SDK server over
streamable HTTP, and the broken test server (crash, hang, isError, list_changed, death, restart)."""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.errors import ToolError
from engine.command_results import CommandFailed, HelpShown
from engine.settings_results import McpServerRestarted, McpServersListed
from engine.events import SlashCommandsChanged
from engine.mcp.connection import ServerState
from engine.orchestrator.orchestrator import Orchestrator
from engine.tools.base import ToolContext, ToolKind
from engine.tools.guard import Workspace
from tests.engine.mcp.conftest import broken, git_server, time_server, warnings
from tests.support.fakes import EventLog, make_orchestrator

# A bound for the servers to start on a busy machine; not a timing assertion.
SETTLE_S = 90.0


async def started(workspace: Path, **servers: dict) -> tuple[Orchestrator, EventLog]:
    orch, log, _ = make_orchestrator(workspace, "http://127.0.0.1:9/v1", mcp_servers=servers)
    orch.mcp.start()
    await orch.mcp.settle(SETTLE_S)
    return orch, log


async def eventually(condition: Callable[[], bool], bound_s: float = 30.0) -> bool:
    """Waits (bounded) for something the servers do in the background."""
    for _ in range(int(bound_s / 0.05)):
        if condition():
            return True
        await asyncio.sleep(0.05)
    return condition()


def state(orch: Orchestrator, name: str) -> ServerState:
    return orch.mcp.connections[name].state


async def call(orch: Orchestrator, tool: str, **arguments: object) -> dict:
    found = orch.registry.get(tool)
    assert found is not None, orch.registry.names()
    output = await found.run(found.parse(arguments), ToolContext(workspace=Workspace(orch.workspace_root)))
    return output.data


async def test_time_server_tools_reach_the_registry_and_run(workspace: Path) -> None:
    orch, _ = await started(workspace, time=time_server())
    assert state(orch, "time") is ServerState.READY
    tool = orch.registry.get("mcp__time__get_current_time")
    assert tool is not None and tool.kind is ToolKind.MCP_READ_ONLY
    wire = {t["function"]["name"]: t["function"] for t in orch.session.tools}
    assert wire["mcp__time__get_current_time"]["parameters"]["required"] == ["timezone"]
    data = await call(orch, "mcp__time__get_current_time", timezone="Europe/Paris")
    assert '"timezone": "Europe/Paris"' in data["content"]


async def test_git_server_reports_the_repository_status(workspace: Path) -> None:
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    (workspace / "new.txt").write_text("hello\n")
    orch, _ = await started(workspace, git=git_server(workspace))
    assert state(orch, "git") is ServerState.READY, orch.mcp.connections["git"].error
    assert "mcp__git__git_status" in orch.registry.names()
    data = await call(orch, "mcp__git__git_status", repo_path=str(workspace))
    assert "new.txt" in data["content"]


async def test_streamable_http_server(workspace: Path, http_server: str) -> None:
    orch, _ = await started(workspace, web={"url": http_server, "headers": {"X-Token": "${WEB_TOKEN:-none}"}})
    assert state(orch, "web") is ServerState.READY, orch.mcp.connections["web"].error
    assert (await call(orch, "mcp__web__echo", text="over http"))["content"] == "echo: over http"


async def test_sse_server(workspace: Path, sse_server: str) -> None:
    orch, _ = await started(workspace, old={"type": "sse", "url": sse_server})
    assert state(orch, "old") is ServerState.READY, orch.mcp.connections["old"].error
    assert orch.mcp.connections["old"].spec.transport == "sse"
    assert (await call(orch, "mcp__old__echo", text="over sse"))["content"] == "echo: over sse"


async def test_failing_servers_are_shown_and_the_rest_work(workspace: Path) -> None:
    orch, log = await started(
        workspace,
        crash=broken("crash"),
        hang=broken("hang", startup_timeout=3),
        missing={"command": "no-such-mcp-server-command"},
        secret={"command": "mcp-server-time", "env": {"KEY": "${NOT_SET_ANYWHERE}"}},
        time=time_server(),
    )
    connections = orch.mcp.connections
    assert state(orch, "time") is ServerState.READY
    assert "crashing on purpose" in (connections["crash"].error or "")
    assert "did not start within 3 s" in (connections["hang"].error or "")
    assert "command not found" in (connections["missing"].error or "")
    assert "NOT_SET_ANYWHERE is not set" in (connections["secret"].error or "")
    assert all(state(orch, n) is ServerState.FAILED for n in ("crash", "hang", "missing", "secret"))
    assert len(warnings(log.events)) == 4
    assert "crashing on purpose" in (workspace / ".coder" / "logs" / "mcp-crash.log").read_text()
    await orch.run_input("/mcp")
    listing = log.of(McpServersListed)[-1]
    rows = {row["name"]: row for row in listing.servers}
    assert rows["time"]["state"] == "ready" and rows["time"]["tools"] == 2 and rows["time"]["transport"] == "stdio"
    assert rows["hang"]["state"] == "failed" and "did not start" in rows["hang"]["error"]
    assert "did not start within 3 s" in listing.text


async def test_is_error_result_is_a_tool_error(workspace: Path) -> None:
    orch, _ = await started(workspace, broken=broken())
    with pytest.raises(ToolError, match="Error executing tool fail"):
        await call(orch, "mcp__broken__fail", reason="nope")


async def test_list_changed_refreshes_tools_and_the_session_list(workspace: Path) -> None:
    orch, _ = await started(workspace, broken=broken())
    assert "mcp__broken__extra" not in orch.registry.names()
    await call(orch, "mcp__broken__grow")
    assert await eventually(lambda: "mcp__broken__extra" in orch.registry.names())
    assert "mcp__broken__extra" in {t["function"]["name"] for t in orch.session.tools}


async def test_dying_server_is_shown_as_failed_and_restart_brings_it_back(workspace: Path) -> None:
    orch, log = await started(workspace, broken=broken())
    with pytest.raises(ToolError, match="Connection closed"):
        await call(orch, "mcp__broken__die")
    assert await eventually(lambda: state(orch, "broken") is ServerState.FAILED)
    assert "mcp__broken__echo" not in orch.registry.names()
    assert any("MCP server broken failed" in w for w in warnings(log.events))
    await orch.run_input("/mcp restart broken")
    assert state(orch, "broken") is ServerState.READY
    assert "restarted: ready" in log.of(McpServerRestarted)[-1].text
    assert (await call(orch, "mcp__broken__echo", text="back"))["content"] == "echo: back"


async def test_prompts_are_slash_commands_in_help_and_completion(workspace: Path) -> None:
    orch, log = await started(workspace, broken=broken())
    assert ("/mcp__broken__review", "Review a file. (MCP prompt of broken)") in orch.slash_commands()
    changed = log.of(SlashCommandsChanged)
    assert changed and ("/mcp__broken__review", "Review a file. (MCP prompt of broken)") in changed[-1].commands
    await orch.run_input("/help")
    assert "/mcp__broken__review <path> [focus]" in log.of(HelpShown)[-1].text
    await orch.run_input("/mcp__broken__review")
    result = log.of(CommandFailed)[-1]
    assert not result.ok and "missing argument: path" in result.text


async def test_stop_ends_every_server_process(workspace: Path) -> None:
    orch, _ = await started(workspace, time=time_server(), broken=broken())
    await orch.mcp.aclose()
    assert all(c.state is ServerState.STOPPED for c in orch.mcp.connections.values())
    assert "mcp__time__get_current_time" not in orch.registry.names()


async def test_project_mcp_json_starts_only_in_a_trusted_folder(workspace: Path, user_config: Path) -> None:
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"time": {"command": "mcp-server-time"}}}))
    orch, _ = await started(workspace)
    assert orch.mcp.connections == {}
    await orch.aclose()
    (user_config / "coder").mkdir(parents=True, exist_ok=True)  # the state key may be there already
    (user_config / "coder" / "config.json").write_text(json.dumps({"trusted_folders": [str(workspace.resolve())]}))
    orch, _ = await started(workspace)
    assert state(orch, "time") is ServerState.READY
    assert orch.mcp.connections["time"].spec.source == str(workspace / ".mcp.json")


async def test_call_longer_than_the_tool_timeout_is_a_tool_error(workspace: Path) -> None:
    orch, _ = await started(workspace, broken=broken(tool_timeout=1))
    with pytest.raises(ToolError, match="MCP server broken"):
        await call(orch, "mcp__broken__hang")
    assert state(orch, "broken") is ServerState.READY


async def test_reload_starts_what_the_configuration_names_now(workspace: Path) -> None:
    orch, _ = await started(workspace, time=time_server())
    orch.config = orch.config.model_copy(update={"mcp_servers": {}})
    await orch.mcp.reload()
    await orch.mcp.settle()
    assert orch.mcp.connections == {}
    assert not any(name.startswith("mcp__") for name in orch.registry.names())
    assert not any(t["function"]["name"].startswith("mcp__") for t in orch.session.tools)
