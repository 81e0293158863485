"""An MCP server's form across the engine process's pipe (SPEC 22): the full screen's engine asks its front end
with an ``InteractionRequested`` carrying the form, and the answer goes back to the server; the call's progress
arrives as events."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from engine.events import ToolProgress
from engine.interaction import ElicitationAnswer, ElicitationRequest
from engine.protocol import AnswerRequest, EngineEvent, InputFinished, InteractionRequested, RunInput
from engine.settings_results import McpServersListed
from tests.server.engine_client import ROOT, EngineClient
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


def test_a_form_and_progress_cross_the_pipe(workspace: Path, scripted_server: ScriptedServer) -> None:
    config = workspace.parent / "xdg" / "coder" / "config.json"
    config.parent.mkdir(parents=True)
    asking = {"command": sys.executable, "args": ["-m", "tests.engine.mcp.asking_server"],
              "env": {"PYTHONPATH": str(ROOT)}}
    config.write_text(json.dumps({"mcp_servers": {"asking": asking}}))
    scripted_server.add(reply(tool_call("mcp__asking__signup"), tool_call("mcp__asking__count")), text("Done."))
    engine = EngineClient(workspace, scripted_server.base_url, "--mode", "yolo")
    try:
        # the full screen's turns do not wait for servers: wait here until /mcp lists the server as ready
        for attempt in range(300):
            engine.send(RunInput(f"m{attempt}", "/mcp"))
            listed = engine.wait_for(lambda m: isinstance(m, EngineEvent) and isinstance(m.event, McpServersListed),
                                     "/mcp's list")
            engine.wait_for(lambda m, a=attempt: isinstance(m, InputFinished) and m.input_id == f"m{a}", "/mcp")
            if [row["state"] for row in listed.event.servers] == ["ready"]:
                break
            time.sleep(0.1)
        else:
            raise AssertionError(f"the server never became ready: {listed.event.text}")
        engine.send(RunInput("i1", "sign me up and count"))
        asked = engine.wait_for(
            lambda m: isinstance(m, InteractionRequested) and isinstance(m.request, ElicitationRequest), "the form"
        )
        assert asked.request.server == "asking" and "age" in asked.request.schema["properties"]
        engine.send(AnswerRequest(asked.request_id, ElicitationAnswer("accept", {"name": "Ada", "age": "36"})))
        engine.wait_for(lambda m: isinstance(m, InputFinished), "the input to finish")
    finally:
        engine.close()
    results = [json.loads(m["content"]) for m in scripted_server.requests[-1].body["messages"] if m["role"] == "tool"]
    assert json.loads(results[0]["content"].removeprefix("accepted: "))["name"] == "Ada"
    progress = [m.event for m in engine.received if isinstance(m, EngineEvent) and isinstance(m.event, ToolProgress)]
    assert [p.summary() for p in progress] == ["1/3 (33%) step 1", "2/3 (67%) step 2", "3/3 (100%) step 3"]
