"""Sampling, elicitation and roots against servers of both kinds and both protocol generations (SPEC 22).

A 2026-07-28 server asks the client by returning an input-required result that the client answers and sends the
call again with; a server written for the older protocol sends a request of its own in the middle of the call,
which a 2026-07-28 connection has no channel for. ``asking_server`` asks the new way (the SDK's resolvers, which
speak either generation), ``back_channel_server`` the old way. With ``protocol`` left at ``auto`` both work: the
client speaks 2026-07-28 and connects again with the initialize handshake for a server seen asking the old way.
(The TypeScript SDK's server is exercised in ``test_everything``.)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.interaction import ElicitationAnswer
from engine.modes import Mode
from tests.engine.mcp.conftest import REPO
from tests.engine.mcp.test_server_requests import ready, tool_results
from tests.support.fakes import FakeInteraction
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

SERVERS = {"resolving": "tests.engine.mcp.asking_server", "back-channel": "tests.engine.mcp.back_channel_server"}


def server(kind: str, protocol: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": ["-m", SERVERS[kind]], "env": {"PYTHONPATH": str(REPO)},
            "protocol": protocol}


async def ask_all_three(workspace: Path, scripted: ScriptedServer, kind: str, protocol: str) -> tuple[Any, list]:
    scripted.add(
        reply(tool_call("mcp__srv__summarize", id="s", text="a long story about a cat"),
              tool_call("mcp__srv__signup", id="e"), tool_call("mcp__srv__where", id="r")),
        text("A cat story."),  # the server's sampling request
        text("Done."),
    )
    interaction = FakeInteraction()
    interaction.elicitation_answers = [ElicitationAnswer("accept", {"name": "Ada", "age": "36"})]
    orch, _, fake = await ready(workspace, scripted, mode=Mode.YOLO, interaction=interaction,
                                servers={"srv": server(kind, protocol)})
    await orch.run_input("ask me things")
    return orch, fake


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
@pytest.mark.parametrize("kind", ["resolving", "back-channel"])
async def test_each_kind_of_request_is_answered(
    kind: str, protocol: str, workspace: Path, scripted_server: ScriptedServer
) -> None:
    orch, fake = await ask_all_three(workspace, scripted_server, kind, protocol)
    sampled, signed, roots = tool_results(scripted_server, 2)
    assert sampled == {"ok": True, "content": "model scripted-model said: A cat story."}
    assert signed["ok"] and json.loads(signed["content"].removeprefix("accepted: "))["name"] == "Ada"
    assert roots["content"] == f"roots: {workspace.name}={workspace.resolve().as_uri()}"
    assert [form.message for form in fake.elicitations] == ["Sign up for the service"]
    # What the model's sampling request held: the server's words, once (a call made again is not asked twice).
    sampling = scripted_server.requests[1].body["messages"]
    assert sampling[-1] == {"role": "user", "content": "Summarize: a long story about a cat"}
    spoken = orch.mcp.connections["srv"]._client.protocol_version
    expected = "2026-07-28" if kind == "resolving" and protocol == "auto" else "2025-11-25"
    assert spoken == expected


async def test_the_fallback_is_logged_and_told(workspace: Path, scripted_server: ScriptedServer) -> None:
    orch, _ = await ask_all_three(workspace, scripted_server, "back-channel", "auto")
    log = orch.mcp.connections["srv"].log_path.read_text()
    assert "protocol 2026-07-28" in log and "connected again with the initialize handshake" in log
    assert log.rindex("protocol 2025-11-25") > log.index("connected again")
    assert log.count("connected again") == 1  # once for the connection, not once per call
