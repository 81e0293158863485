"""ACP prompts as editors send them (SPEC 24): Zed's cancel-then-prompt at once, every time; a prompt sent while
one runs (queued, never "Internal error"); images beside text and alone; usage updates; the commands advertised
again when an MCP server's prompts arrive."""

from __future__ import annotations

import asyncio
import base64
import sys
from pathlib import Path

from acp import text_block
from acp.schema import AvailableCommandsUpdate, ImageContentBlock, UsageUpdate

from tests.server.test_acp import REPO, ScriptedClient, agent
from tests.support.scenario import reply, stall, text
from tests.support.scripted_server import ScriptedServer

# A 1x1 transparent PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
ROUNDS = 20


async def test_cancel_then_prompt_at_once_works_every_time(workspace: Path, scripted_server: ScriptedServer) -> None:
    client = ScriptedClient()
    async with agent(workspace, scripted_server, client) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        for round_ in range(ROUNDS):
            scripted_server.add(stall(after=text(f"working {round_}"), seconds=60), text(f"answer {round_}"))
            first = asyncio.create_task(conn.prompt(session_id=session.session_id, prompt=[text_block("long")]))
            while f"working {round_}" not in client.text():
                await asyncio.wait_for(client.update_seen.wait(), timeout=30)
                client.update_seen.clear()
            # Zed: the cancel notification, then at once the next prompt, nothing awaited between them
            cancel = asyncio.ensure_future(conn.cancel(session_id=session.session_id))
            second = asyncio.ensure_future(
                conn.prompt(session_id=session.session_id, prompt=[text_block(f"next {round_}")])
            )
            await cancel
            assert (await asyncio.wait_for(first, 30)).stop_reason == "cancelled"
            assert (await asyncio.wait_for(second, 30)).stop_reason == "end_turn", round_
            assert client.text().endswith(f"answer {round_}")
    asked = [r.body["messages"][-1]["content"] for r in scripted_server.requests if r.body]
    assert [a for a in asked if a.startswith("next")] == [f"next {n}" for n in range(ROUNDS)]


async def test_a_prompt_sent_while_one_runs_waits_for_it(workspace: Path, scripted_server: ScriptedServer) -> None:
    # A usage the size of what was sent (a far smaller count would read as a prompt the server cut).
    scripted_server.add(reply(text("first answer"), usage=(3600, 8)), text("second answer"))
    client = ScriptedClient()
    async with agent(workspace, scripted_server, client) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        first, second = await asyncio.gather(
            conn.prompt(session_id=session.session_id, prompt=[text_block("one")]),
            conn.prompt(session_id=session.session_id, prompt=[text_block("two")]),
        )
    assert (first.stop_reason, second.stop_reason) == ("end_turn", "end_turn")
    assert client.text() == "first answersecond answer"
    last = scripted_server.requests[-1].body["messages"]
    assert [m["content"] for m in last if m["role"] == "user"] == ["one", "two"]
    usage = client.of(UsageUpdate)
    assert usage and usage[0].used > 0 and usage[0].size == 128_000


async def test_images_in_a_prompt_reach_the_model_as_images(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("a pixel"), text("still a pixel"))
    image = ImageContentBlock(type="image", data=base64.b64encode(PNG).decode(), mime_type="image/png")
    client = ScriptedClient()
    async with agent(workspace, scripted_server, client) as conn:
        hello = await conn.initialize(protocol_version=1)
        assert hello.agent_capabilities.prompt_capabilities.image is True
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("what is this?"), image])
        await conn.prompt(session_id=session.session_id, prompt=[image])  # an image alone is a prompt too
    url = f"data:image/png;base64,{base64.b64encode(PNG).decode()}"
    for request in scripted_server.requests:
        parts = request.body["messages"][-1]["content"]
        assert {"type": "image_url", "image_url": {"url": url}} in parts


async def test_mcp_prompts_are_advertised_when_the_server_is_ready(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    client = ScriptedClient()
    broken = {"name": "broken", "command": sys.executable, "args": ["-m", "tests.engine.mcp.broken_server"],
              "env": [{"name": "PYTHONPATH", "value": str(REPO)}]}
    async with agent(workspace, scripted_server, client) as conn:
        hello = await conn.initialize(protocol_version=1)
        assert hello.agent_capabilities.mcp_capabilities.http is True
        await conn.new_session(cwd=str(workspace), mcp_servers=[broken])
        for _ in range(600):
            names = [{c.name for c in u.available_commands} for u in client.of(AvailableCommandsUpdate)]
            if any("mcp__broken__review" in n for n in names):
                break
            await asyncio.sleep(0.1)
    assert "mcp__broken__review" not in names[0]  # not there at session/new: the server was still starting
    assert "mcp__broken__review" in names[-1]
