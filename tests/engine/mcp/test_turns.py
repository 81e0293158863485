"""MCP tools in turns, end to end through the scripted OpenAI server: the call, its result in the next request,
approval in default mode, a pattern rule, plan mode, Esc during a hanging call, prompts, the logs, headless JSON."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest

from engine.command_results import CommandReply
from engine.events import ToolCallExecuting, ToolCallFinished, ToolStatus
from engine.interaction import ApprovalAnswer, ApprovalDecision
from engine.modes import Mode
from engine.orchestrator.orchestrator import Orchestrator
from tests.engine.mcp.conftest import broken, time_server, warnings
from tests.support.fakes import EventLog, FakeInteraction, make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

SETTLE_S = 90.0
NOW = "mcp__time__get_current_time"


async def ready(
    workspace: Path, server: ScriptedServer, *, mode: Mode | None = None, interaction: FakeInteraction | None = None,
    **config: Any,
) -> tuple[Orchestrator, EventLog, FakeInteraction]:
    orch, log, fake = make_orchestrator(workspace, server.base_url, mode=mode, interaction=interaction, **config)
    orch.mcp.start()
    await orch.mcp.settle(SETTLE_S)
    return orch, log, fake


def tool_messages(server: ScriptedServer, index: int) -> list[dict[str, Any]]:
    messages = server.requests[index].body["messages"]
    return [dict(m, content=json.loads(m["content"])) for m in messages if m["role"] == "tool"]


async def test_model_calls_an_mcp_tool_and_gets_its_result(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call(NOW, id="call_t", timezone="Asia/Tokyo")), text("It is late in Tokyo."))
    orch, log, fake = await ready(workspace, scripted_server, mcp_servers={"time": time_server()})
    outcome = await orch.run_input("what time is it in Tokyo?")
    assert outcome.ok
    offered = {t["function"]["name"] for t in scripted_server.requests[0].body["tools"]}
    assert {NOW, "mcp__time__convert_time"} <= offered
    [result] = tool_messages(scripted_server, 1)
    assert result["tool_call_id"] == "call_t" and result["content"]["ok"] is True
    assert '"timezone": "Asia/Tokyo"' in result["content"]["content"]
    # default mode asks, once, naming the tool and its key argument
    [request] = fake.approval_requests
    assert request.tool == NOW and request.key_argument == "Asia/Tokyo"
    assert request.always_scope == f"every {NOW} call"
    [finished] = log.of(ToolCallFinished)
    assert finished.tool == NOW and finished.key_argument == "Asia/Tokyo" and finished.status is ToolStatus.SUCCESS
    # the audit log and the permission log hold the call
    audit = [e for e in orch.store.audit.entries(orch.session_id) if e.tool == NOW]
    assert audit and audit[0].input == {"timezone": "Asia/Tokyo"} and audit[0].is_error is False
    decisions = [(e.decision, e.decided_by) for e in orch.store.audit.permissions(orch.session_id) if e.tool == NOW]
    assert decisions == [("ask", "policy"), ("yes", "user")]


async def test_pattern_rule_allows_without_asking(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call(NOW, timezone="UTC")), text("done"))
    orch, _, fake = await ready(
        workspace,
        scripted_server,
        mcp_servers={"time": time_server()},
        permissions={"tools": {"mcp__time__*": "allow"}},
    )
    assert (await orch.run_input("time?")).ok
    assert fake.approval_requests == []
    assert tool_messages(scripted_server, 1)[0]["content"]["ok"] is True


async def test_refused_approval_is_an_error_the_model_sees(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call(NOW, timezone="UTC")), text("ok, I will not"))
    interaction = FakeInteraction([ApprovalAnswer(ApprovalDecision.NO, "not now")])
    orch, _, _ = await ready(workspace, scripted_server, interaction=interaction, mcp_servers={"time": time_server()})
    await orch.run_input("time?")
    assert tool_messages(scripted_server, 1)[0]["content"] == {
        "ok": False, "error": "the user refused this call and says: not now"
    }


async def test_plan_mode_blocks_mcp_tools_not_annotated_read_only(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(tool_call("mcp__broken__fail"), tool_call("mcp__broken__echo", text="hi")), text("ok"))
    orch, _, fake = await ready(workspace, scripted_server, mode=Mode.PLAN, mcp_servers={"broken": broken()})
    await orch.run_input("try both")
    blocked, echoed = tool_messages(scripted_server, 1)
    assert blocked["content"]["ok"] is False and "disabled in plan mode" in blocked["content"]["error"]
    # echo is annotated readOnlyHint: plan asks for it instead of blocking it
    assert echoed["content"] == {"ok": True, "content": "echo: hi"}
    assert [r.tool for r in fake.approval_requests] == ["mcp__broken__echo"]


async def test_always_can_allow_the_whole_server(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(
        reply(tool_call("mcp__broken__echo", text="one")),
        reply(tool_call("mcp__broken__picture")),
        text("done"),
    )
    interaction = FakeInteraction([ApprovalDecision.ALWAYS])
    orch, _, fake = await ready(
        workspace, scripted_server, interaction=interaction, mcp_servers={"broken": broken(always="server")}
    )
    await orch.run_input("go")
    [request] = fake.approval_requests
    assert request.always_scope == "every mcp__broken__* call"
    expected = "[image: image/png, 70 bytes; attached after the tool results]"
    assert tool_messages(scripted_server, 2)[-1]["content"] == {"ok": True, "content": expected}


async def test_esc_cancels_a_hanging_mcp_call(
    workspace: Path, scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    mark = tmp_path / "cancelled.mark"
    scripted_server.add(reply(tool_call("mcp__broken__hang")), text("never sent"))
    orch, log, _ = await ready(
        workspace, scripted_server, mode=Mode.YOLO, mcp_servers={"broken": broken(env={"BROKEN_MARK": str(mark)})}
    )
    running = asyncio.create_task(orch.run_input("hang"))
    for _ in range(1200):
        if log.of(ToolCallExecuting):
            break
        await asyncio.sleep(0.05)
    assert log.of(ToolCallExecuting)
    for _ in range(1200):  # the server is running the call
        if mark.exists() and mark.read_text() == "started":
            break
        await asyncio.sleep(0.05)
    assert orch.cancel()
    outcome = await running
    assert outcome.reason == "cancelled"
    assert log.of(ToolCallFinished)[-1].status is ToolStatus.CANCELLED
    for _ in range(200):  # the server hears of the cancellation (notifications/cancelled)
        if mark.read_text() == "cancelled":
            break
        await asyncio.sleep(0.05)
    assert mark.read_text() == "cancelled"
    # the server is still usable afterwards
    assert orch.mcp.connections["broken"].state.value == "ready"


async def test_prompt_command_runs_a_turn_on_the_prompt(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("Looks fine."))
    orch, _, _ = await ready(workspace, scripted_server, mcp_servers={"broken": broken()})
    outcome = await orch.run_input("/mcp__broken__review src/app.py focus=naming")
    assert outcome.ok and outcome.text == "Looks fine."
    sent = scripted_server.requests[0].body["messages"][-1]
    assert sent["role"] == "user" and sent["content"].startswith("Please review src/app.py, looking for naming.")


async def test_tools_command_lists_mcp_tools_with_their_state(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    orch, log, _ = await ready(workspace, scripted_server, mcp_servers={"time": time_server()})
    await orch.run_input("/tools")
    rows = {row["name"]: row for row in log.of(CommandReply)[-1].tools}
    assert rows[NOW]["state"] == "ask"
    orch.set_mode(Mode.YOLO)
    await orch.run_input("/tools")
    rows = {row["name"]: row for row in log.of(CommandReply)[-1].tools}
    assert rows[NOW]["state"] == "allow"


async def test_headless_waits_for_servers_and_its_json_shows_the_call(
    workspace: Path, scripted_server: ScriptedServer, user_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from coder_tui.launch.headless import run_headless

    (user_config / "coder").mkdir(parents=True)
    (user_config / "coder" / "config.json").write_text(
        json.dumps(
            {
                "model": "scripted-model",
                "provider": {"base_url": scripted_server.base_url},
                "mcp_servers": {"time": time_server()},
                "permissions": {"tools": {"mcp__time__*": "allow"}},
            }
        )
    )
    scripted_server.add(reply(tool_call(NOW, timezone="UTC")), text("It is noon."))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    out, err = io.StringIO(), io.StringIO()
    code = await run_headless("time?", workspace=workspace, output_format="json", out=out, err=err)
    assert code == 0, err.getvalue()
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    finished = [line for line in lines if line["type"] == "ToolCallFinished"]
    assert finished and finished[0]["tool"] == NOW and finished[0]["status"] == "success"
    assert '"timezone": "UTC"' in finished[0]["result"]["content"]
    assert lines[-1]["type"] == "result" and lines[-1]["ok"] is True


async def test_resource_mention_attaches_the_resource(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("Noted."))
    orch, log, _ = await ready(workspace, scripted_server, mcp_servers={"broken": broken()})
    assert (await orch.run_input("see @broken:note://readme and @broken:note://missing, then @decorator")).ok
    sent = scripted_server.requests[0].body["messages"][-1]["content"]
    assert '<resource server="broken" uri="note://readme">\nRemember: the build needs Python 3.11.\n</resource>' in sent
    assert "note://missing" in sent.split("\n\n")[0] and sent.count("<resource") == 1
    assert any("@broken:note://missing not attached" in w for w in warnings(log.events))
