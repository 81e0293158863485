"""The reference ``@modelcontextprotocol/server-everything`` over stdio (SPEC 22): it offers its sampling,
elicitation and roots tools only to a client that supports them, so their being offered and working proves the
client does. Installed from ``tests/engine/mcp/node/package.json`` into ``.test-cache/mcp-node`` (once); skipped,
saying why, where Node or npm is missing or the package cannot be installed."""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

import pytest

from engine.interaction import ElicitationAnswer
from engine.modes import Mode
from tests.engine.mcp.conftest import REPO
from tests.engine.mcp.test_server_requests import ready, tool_results
from tests.support.fakes import FakeInteraction
from tests.support.node_cache import npm_install_once
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

CACHE = REPO / ".test-cache" / "mcp-node"
PACKAGE = Path(__file__).resolve().parent / "node" / "package.json"
PREFIX = "mcp__everything__"


@pytest.fixture(scope="module")
def everything() -> dict[str, object]:
    entry = CACHE / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    npm_install_once(CACHE, PACKAGE, entry, "server-everything")
    return {"command": shutil.which("node"), "args": [str(entry), "stdio"]}


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_sampling_elicitation_roots_and_images(
    protocol: str, everything: dict[str, object], workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(
        reply(
            tool_call(PREFIX + "trigger-sampling-request", id="s", prompt="Say hi", maxTokens=20),
            tool_call(PREFIX + "get-roots-list", id="r"),
            tool_call(PREFIX + "trigger-elicitation-request", id="e"),
            tool_call(PREFIX + "get-tiny-image", id="i"),
        ),
        text("hi there"),  # the sampling request
        text("All done."),
    )
    interaction = FakeInteraction()
    interaction.elicitation_answers = [ElicitationAnswer("accept", {"name": "Ada Lovelace"})]
    orch, _, fake = await ready(workspace, scripted_server, mode=Mode.YOLO, interaction=interaction,
                                servers={"everything": {**everything, "protocol": protocol}})
    offered = set(orch.registry.names())
    assert {PREFIX + "trigger-sampling-request", PREFIX + "trigger-elicitation-request",
            PREFIX + "get-roots-list"} <= offered
    await orch.run_input("exercise it")
    sampled, roots, elicited, image = tool_results(scripted_server, 2)
    assert "hi there" in sampled["content"]
    assert workspace.resolve().as_uri() in roots["content"]
    assert "Ada Lovelace" in elicited["content"]
    assert [form.server for form in fake.elicitations] == ["everything"]
    assert "image/png" in image["content"] and "base64" not in image["content"]
    sent = scripted_server.requests[2].body["messages"]
    parts = [p for m in sent if isinstance(m["content"], list) for p in m["content"] if p["type"] == "image_url"]
    assert len(parts) == 1 and parts[0]["image_url"]["url"].startswith("data:image/png;base64,")
    base64.b64decode(parts[0]["image_url"]["url"].split(",", 1)[1], validate=True)
