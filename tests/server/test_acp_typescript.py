"""One end-to-end run of the ACP agent by the official TypeScript SDK's client (``@agentclientprotocol/sdk`` 2.4,
whose zod schemas check every message it receives): ``tests/server/node/acp_client.mjs``. The SDK is installed
from ``tests/server/node/package.json`` into ``.test-cache/acp-node`` (once; later runs reuse it). Skipped, saying
why, where Node or npm is missing or the package cannot be installed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.server.test_acp import REPO, environment
from tests.support.node_cache import npm_install_once
from tests.support.scenario import reply, stall, text, tool_call
from tests.support.scripted_server import ScriptedServer

NODE_PROJECT = Path(__file__).resolve().parent / "node"
CACHE = REPO / ".test-cache" / "acp-node"


@pytest.fixture(scope="module")
def node_client() -> Path:
    npm_install_once(CACHE, NODE_PROJECT / "package.json", CACHE / "node_modules" / "@agentclientprotocol" / "sdk",
                     "the TypeScript ACP client (@agentclientprotocol/sdk)")
    shutil.copy(NODE_PROJECT / "acp_client.mjs", CACHE / "acp_client.mjs")
    return CACHE / "acp_client.mjs"


def test_the_typescript_sdk_client_drives_a_session(
    node_client: Path, workspace: Path, scripted_server: ScriptedServer
) -> None:
    fixed = "def add(a, b):\n    return a + b\n"
    scripted_server.add(
        reply(tool_call("write", id="w1", path="calc.py", content=fixed)),
        text("Fixed."),
        stall(after=text("working on it"), seconds=60),
        text("next answer"),
    )
    done = subprocess.run(
        ["node", str(node_client), sys.executable, str(workspace)],
        env=environment(workspace, scripted_server), capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["agent"] == "coder-tui" and summary["image"] is True
    assert summary["stops"] == ["end_turn", "cancelled", "end_turn"]
    assert summary["permissions"] == ["write calc.py"]
    assert {"agent_message_chunk", "tool_call", "tool_call_update", "available_commands_update",
            "usage_update"} <= set(summary["kinds"])
    assert summary["listed"] is True
    assert (workspace / "calc.py").read_text() == fixed
