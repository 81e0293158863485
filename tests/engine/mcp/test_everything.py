"""The reference ``@modelcontextprotocol/server-everything`` over stdio (SPEC 22): it offers its sampling,
elicitation and roots tools only to a client that supports them, so their being offered and working proves the
client does. Installed from ``tests/engine/mcp/node/package.json`` into ``.test-cache/mcp-node`` (once); skipped,
saying why, where Node or npm is missing or the package cannot be installed."""

from __future__ import annotations

import base64
import shutil
import subprocess
from pathlib import Path

import pytest

from engine.interaction import ElicitationAnswer
from engine.modes import Mode
from tests.engine.mcp.conftest import REPO
from tests.engine.mcp.test_server_requests import ready, tool_results
from tests.support.fakes import FakeInteraction
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

CACHE = REPO / ".test-cache" / "mcp-node"
PACKAGE = Path(__file__).resolve().parent / "node" / "package.json"
PREFIX = "mcp__everything__"


@pytest.fixture(scope="module")
def everything() -> dict[str, object]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("Node.js and npm are not installed: server-everything cannot run")
    entry = CACHE / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    if not entry.is_file():
        CACHE.mkdir(parents=True, exist_ok=True)
        shutil.copy(PACKAGE, CACHE / "package.json")
        done = subprocess.run([npm, "install", "--no-audit", "--no-fund"], cwd=CACHE, capture_output=True,
                              text=True, timeout=600)
        if done.returncode != 0:
            pytest.skip(f"npm could not install server-everything: {done.stderr.strip()[-300:]}")
    return {"command": node, "args": [str(entry), "stdio"]}


async def test_sampling_elicitation_roots_and_images(
    everything: dict[str, object], workspace: Path, scripted_server: ScriptedServer
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
                                servers={"everything": everything})
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
