"""MCP prompts reach Tab completion once their server is up (SPEC 22: prompts are slash commands)."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from coder_tui.app import CoderApp
from coder_tui.input.history import InputHistory
from coder_tui.widgets.completion_list import CompletionList
from engine.server.host import EngineOptions
from engine.server.memory import InMemoryEngine
from tests.engine.mcp.conftest import broken
from tests.support.fakes import make_config
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import prompt_of, ready

PROMPT = "/mcp__broken__review"


async def wait_for(pilot: Pilot[object], condition: object, what: str) -> None:
    """MCP servers start in other processes: a wider bound than the helpers' (it only turns a hang into a failure)."""
    for _ in range(3000):
        if condition():  # type: ignore[operator]
            return
        await pilot.pause(0.03)
    raise AssertionError(f"timed out waiting for {what}")


async def test_tab_completes_an_mcp_prompt_once_its_server_is_up(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    options = EngineOptions(workspace=workspace, env={"OPENAI_API_KEY": "sk-test-key"})
    config = make_config(scripted_server.base_url, mcp_servers={"broken": broken()})
    app = CoderApp(
        workspace=workspace,
        engine=lambda: InMemoryEngine(options, config=config),
        history=InputHistory(None),
    )
    async with app.run_test() as pilot:
        await ready(pilot)
        offered = app.session.prompt
        await wait_for(pilot, lambda: PROMPT in [name for name, _ in offered.slash_commands], "the MCP prompt")
        await pilot.press(*"/mcp__b")
        completions = app.session.query_one(CompletionList)
        assert [c.value for c in completions.completions] == [PROMPT]
        await pilot.press("tab")
        assert prompt_of(app).text == PROMPT + " "
