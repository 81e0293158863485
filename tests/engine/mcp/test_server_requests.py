"""What an MCP server asks of the client (SPEC 22), end to end: a real server on the SDK (``asking_server``) over
stdio, the orchestrator, and the scripted OpenAI server as the session's model. Sampling (approved, refused,
headless), elicitation (a form answered, declined, headless with and without configured answers, URL mode), roots,
progress, logging, an image result sent as an image, and a list change applied before the next request."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

from engine.events import Notice, ToolProgress
from engine.interaction import ApprovalDecision, ElicitationAnswer
from engine.modes import Mode
from engine.orchestrator.orchestrator import Orchestrator
from engine.orchestrator.mcp_requests import SessionServerRequests
from mcp_types import ElicitRequestURLParams
from tests.engine.mcp.broken_server import PNG
from tests.engine.mcp.conftest import REPO, broken
from tests.support.fakes import EventLog, FakeInteraction, make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

SETTLE_S = 90.0


def asking() -> dict[str, Any]:
    return {"command": sys.executable, "args": ["-m", "tests.engine.mcp.asking_server"],
            "env": {"PYTHONPATH": str(REPO)}}


async def ready(
    workspace: Path, server: ScriptedServer, **options: Any
) -> tuple[Orchestrator, EventLog, FakeInteraction]:
    servers = options.pop("servers", {"asking": asking()})
    orch, log, fake = make_orchestrator(workspace, server.base_url, mcp_servers=servers, **options)
    orch.mcp.start()
    await orch.mcp.settle(SETTLE_S)
    return orch, log, fake


def tool_results(server: ScriptedServer, index: int) -> list[Any]:
    messages = server.requests[index].body["messages"]
    return [json.loads(m["content"]) for m in messages if m["role"] == "tool"]


async def test_sampling_is_approved_then_answered_by_the_sessions_model(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(
        reply(tool_call("mcp__asking__summarize", id="s1", text="a long story about a cat")),
        text("A cat story."),  # the sampling request
        text("Done."),
    )
    orch, _, fake = await ready(workspace, scripted_server)
    assert (await orch.run_input("summarize it")).ok
    # asked twice: the tool call, then the server's sampling request, shown with what it sends
    call, sampling = fake.approval_requests
    assert call.tool == "mcp__asking__summarize"
    assert sampling.tool == "mcp__asking__sampling"
    assert "Summarize: a long story about a cat" in (sampling.preview or "")
    sent = scripted_server.requests[1].body["messages"]
    assert sent == [{"role": "system", "content": "You write one-line summaries."},
                    {"role": "user", "content": "Summarize: a long story about a cat"}]
    [result] = tool_results(scripted_server, 2)
    assert result == {"ok": True, "content": "model scripted-model said: A cat story."}


async def test_refused_sampling_never_reaches_the_model(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("mcp__asking__summarize", text="secret")), text("Could not."))
    interaction = FakeInteraction([ApprovalDecision.YES, ApprovalDecision.NO])
    orch, log, _ = await ready(workspace, scripted_server, interaction=interaction)
    await orch.run_input("summarize it")
    assert len(scripted_server.requests) == 2  # the turn's two requests; no sampling request went out
    [result] = tool_results(scripted_server, 1)
    assert result["ok"] is False and "the user declined" in result["error"]
    assert any("sampling request refused" in n.text for n in log.of(Notice))


async def test_headless_sampling_is_refused_unless_a_rule_allows_it(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    # Headless, and the call itself allowed by a rule: the sampling request still needs a yes nobody can give.
    scripted_server.add(reply(tool_call("mcp__asking__summarize", text="x")), text("No."))
    rule = {"tools": {"mcp__asking__summarize": "allow"}}
    orch, _, fake = await ready(workspace, scripted_server, interactive=False, permissions=rule)
    await orch.run_input("summarize it")
    assert len(scripted_server.requests) == 2 and fake.approval_requests == []
    [result] = tool_results(scripted_server, 1)
    assert "a non-interactive run cannot give" in result["error"]

    scripted_server.add(reply(tool_call("mcp__asking__summarize", text="x")), text("short"), text("ok"))
    rule = {"tools": {"mcp__asking__*": "allow"}}  # the server's sampling too
    orch, _, fake = await ready(workspace, scripted_server, interactive=False, permissions=rule)
    await orch.run_input("summarize it")
    assert tool_results(scripted_server, 4) == [{"ok": True, "content": "model scripted-model said: short"}]
    assert fake.approval_requests == []


async def test_elicitation_form_is_answered_and_checked(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("mcp__asking__signup")), text("Signed up."))
    interaction = FakeInteraction()
    interaction.elicitation_answers = [
        ElicitationAnswer("accept", {"name": "Ada", "age": "36", "plan": "pro", "newsletter": True})
    ]
    orch, _, fake = await ready(workspace, scripted_server, interaction=interaction)
    await orch.run_input("sign me up")
    [form] = fake.elicitations
    assert form.server == "asking" and form.message == "Sign up for the service"
    assert set(form.schema["properties"]) == {"name", "age", "plan", "newsletter"}
    [result] = tool_results(scripted_server, 1)
    content = json.loads(result["content"].removeprefix("accepted: "))
    assert content == {"name": "Ada", "age": 36, "plan": "pro", "newsletter": True}


async def test_elicitation_declined_cancelled_and_url_mode(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(tool_call("mcp__asking__signup"), tool_call("mcp__asking__signup")), text("ok"))
    interaction = FakeInteraction()
    interaction.elicitation_answers = [ElicitationAnswer("decline"), ElicitationAnswer("cancel")]
    orch, _, fake = await ready(workspace, scripted_server, interaction=interaction)
    await orch.run_input("go")
    declined, cancelled = tool_results(scripted_server, 1)
    assert (declined["content"], cancelled["content"]) == ("the user chose decline", "the user chose cancel")
    # URL mode (a page to open, nothing to fill in): the user's yes goes back without content
    fake.elicitation_answers = [ElicitationAnswer("accept")]
    url = ElicitRequestURLParams(mode="url", message="Sign in", url="https://example.com/in", elicitation_id="e1")
    answer = await SessionServerRequests(orch).elicit("asking", url)
    assert (answer.action, answer.content) == ("accept", None)
    assert (fake.elicitations[-1].url, fake.elicitations[-1].schema) == ("https://example.com/in", {})


async def test_headless_elicitation_declines_with_a_reason_or_uses_configured_answers(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(tool_call("mcp__asking__signup")), text("ok"))
    orch, log, fake = await ready(workspace, scripted_server, interactive=False, mode=Mode.YOLO)
    await orch.run_input("sign up")
    assert tool_results(scripted_server, 1)[0]["content"] == "the user chose decline"
    assert fake.elicitations == []
    assert any("nobody can answer in this run" in n.text and "mcp_servers.asking.elicitation" in n.text
               for n in log.of(Notice))

    configured = {**asking(), "elicitation": {"name": "Bot", "age": 3}}
    scripted_server.add(reply(tool_call("mcp__asking__signup")), text("ok"))
    orch, _, _ = await ready(workspace, scripted_server, interactive=False, mode=Mode.YOLO,
                             servers={"asking": configured})
    await orch.run_input("sign up")
    content = tool_results(scripted_server, 3)[0]["content"]
    assert json.loads(content.removeprefix("accepted: ")) == {"name": "Bot", "age": 3, "plan": "free",
                                                              "newsletter": False}


async def test_roots_progress_and_logging(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(
        reply(tool_call("mcp__asking__where", id="w"), tool_call("mcp__asking__count", id="c"),
              tool_call("mcp__asking__chatty", id="l")),
        text("ok"),
    )
    orch, log, _ = await ready(workspace, scripted_server, mode=Mode.YOLO)
    await orch.run_input("go")
    where, counted, logged = tool_results(scripted_server, 1)
    assert where["content"] == f"roots: {workspace.name}={workspace.resolve().as_uri()}"
    assert counted["content"] == "counted" and logged["content"] == "logged"
    progress = [(p.call_id, p.progress, p.total, p.message) for p in log.of(ToolProgress)]
    assert progress == [("c", 1, 3, "step 1"), ("c", 2, 3, "step 2"), ("c", 3, 3, "step 3")]
    server_log = orch.mcp.connections["asking"].log_path.read_text()
    assert "an info line from chatty" in server_log and "a warning line from chatty" in server_log


async def test_an_image_result_reaches_the_model_as_an_image(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(tool_call("mcp__broken__picture", id="p")), text("A transparent pixel."))
    orch, _, _ = await ready(workspace, scripted_server, mode=Mode.YOLO, servers={"broken": broken()})
    await orch.run_input("show me")
    sent = scripted_server.requests[1].body["messages"]
    [tool] = [m for m in sent if m["role"] == "tool"]
    encoded = base64.b64encode(PNG).decode()
    assert encoded[:40] not in tool["content"]
    images = [part for m in sent if m["role"] == "user" and isinstance(m["content"], list)
              for part in m["content"] if part["type"] == "image_url"]
    assert [part["image_url"]["url"] for part in images] == [f"data:image/png;base64,{encoded}"]
    assert sent.index(tool) < next(i for i, m in enumerate(sent) if isinstance(m["content"], list))


async def test_a_tool_list_change_is_offered_in_the_very_next_request(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(tool_call("mcp__broken__grow")), text("grown"))
    orch, _, _ = await ready(workspace, scripted_server, mode=Mode.YOLO, servers={"broken": broken()})
    for _ in range(3):  # not a lucky race: every time
        await orch.mcp.restart("broken")
        await orch.mcp.settle(SETTLE_S)
        assert "mcp__broken__extra" not in orch.registry.names()
        scripted_server.add(reply(tool_call("mcp__broken__grow")), text("grown"))
        await orch.run_input("grow")
        offered = {t["function"]["name"] for t in scripted_server.requests[-1].body["tools"]}
        assert "mcp__broken__extra" in offered
