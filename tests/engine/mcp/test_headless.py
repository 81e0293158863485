"""Headless runs with MCP servers (SPEC 22): ``-p '/mcp'``, ``-p '/tools'`` and ``-p '/mcp__server__prompt'`` wait
for the servers to start, and a call's progress is printed (text) and emitted (JSON)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.engine.mcp.conftest import broken
from tests.engine.mcp.test_server_requests import asking
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


async def headless(
    prompt: str, workspace: Path, server: ScriptedServer, user_config: Path, monkeypatch: pytest.MonkeyPatch,
    output_format: str = "text", **config: Any,
) -> tuple[int, str, str]:
    from coder_tui.launch.headless import run_headless

    (user_config / "coder").mkdir(parents=True, exist_ok=True)
    settings = {"model": "scripted-model", "provider": {"base_url": server.base_url}, **config}
    (user_config / "coder" / "config.json").write_text(json.dumps(settings))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    out, err = io.StringIO(), io.StringIO()
    code = await run_headless(prompt, workspace=workspace, output_format=output_format, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


async def test_mcp_and_tools_show_the_started_servers(
    workspace: Path, scripted_server: ScriptedServer, user_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    servers = {"broken": broken()}
    code, out, err = await headless("/mcp", workspace, scripted_server, user_config, monkeypatch,
                                    mcp_servers=servers)
    assert code == 0, err
    assert "broken" in out and "ready" in out and "stopped" not in out
    code, out, err = await headless("/tools", workspace, scripted_server, user_config, monkeypatch,
                                    mcp_servers=servers)
    assert code == 0, err
    assert "mcp__broken__echo" in out


async def test_an_mcp_prompt_runs_headless(
    workspace: Path, scripted_server: ScriptedServer, user_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scripted_server.add(text("Reviewed."))
    code, out, err = await headless("/mcp__broken__review calc.py", workspace, scripted_server, user_config,
                                    monkeypatch, mcp_servers={"broken": broken()})
    assert code == 0, err
    assert out.strip() == "Reviewed."
    sent = scripted_server.requests[-1].body["messages"][-1]["content"]
    assert sent.startswith("Please review calc.py, looking for bugs.")


async def test_progress_is_printed_and_in_the_json(
    workspace: Path, scripted_server: ScriptedServer, user_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = {"mcp_servers": {"asking": asking()}, "permissions": {"tools": {"mcp__asking__*": "allow"}}}
    scripted_server.add(reply(tool_call("mcp__asking__count")), text("Counted."))
    code, _, err = await headless("count", workspace, scripted_server, user_config, monkeypatch, **config)
    assert code == 0, err
    assert "[mcp__asking__count] 2/3 (67%) step 2" in err
    scripted_server.add(reply(tool_call("mcp__asking__count")), text("Counted."))
    code, out, err = await headless("count", workspace, scripted_server, user_config, monkeypatch, "json", **config)
    assert code == 0, err
    progress = [line for line in map(json.loads, out.splitlines()) if line["type"] == "ToolProgress"]
    assert [(p["progress"], p["total"], p["message"]) for p in progress] == [
        (1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")
    ]
