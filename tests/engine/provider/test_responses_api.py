"""SPEC 18: models served on the Responses API. A whole turn with a tool call over ``POST /v1/responses`` of the
scripted server, through the real openai SDK: the request's form (instructions, input items, function tools, no
stored state, encrypted reasoning asked for), reasoning summaries shown, encrypted reasoning items sent back, usage
with cached tokens; and which models and profiles take that API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.config.loader import load_config
from engine.events import ReasoningDelta, TextDelta, UsageUpdated
from engine.settings_results import ServerChecked
from engine.provider.model_apis import known_api
from tests.support.fakes import make_orchestrator
from tests.support.responses_wire import response_events
from tests.support.scenario import error, reasoning, reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

RESPONSES = {"api": "responses", "max_retries": 0}


def _input_items(request_body: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [item for item in request_body["input"] if item.get("type") == kind]


async def test_responses_turn_with_a_tool_call(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    (tmp_path / "a.py").write_text("print('a')\n")
    scripted_server.add(
        reply(reasoning("Read the file first."), tool_call("read", id="call_r1", path="a.py"), usage=(1200, 30),
              cached=1024),
        reply(text("It prints a."), usage=(1300, 5), cached=1152),
    )
    orchestrator, log, _ = make_orchestrator(
        tmp_path, scripted_server.base_url, provider={"base_url": scripted_server.base_url, **RESPONSES}
    )

    outcome = await orchestrator.run_input("what does a.py print?")

    assert outcome.ok, outcome
    assert [request.path for request in scripted_server.requests] == ["/v1/responses", "/v1/responses"]
    first, second = (request.body for request in scripted_server.requests)
    assert first["stream"] is True and first["store"] is False
    assert first["include"] == ["reasoning.encrypted_content"]
    assert first["reasoning"] == {"summary": "auto"}
    assert first["instructions"] == orchestrator.session.system_prompt
    assert first["input"] == [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "what does a.py print?"}]}
    ]
    read = next(tool for tool in first["tools"] if tool["name"] == "read")
    assert read["type"] == "function" and read["strict"] is False and read["parameters"]["type"] == "object"
    # The second request carries the first answer back: its reasoning item (encrypted content included), the
    # call under its id, and the call's result.
    [sent_reasoning] = _input_items(second, "reasoning")
    summary = [{"type": "summary_text", "text": "Read the file first."}]
    assert sent_reasoning == {"type": "reasoning", "summary": summary, "encrypted_content": "enc:Read the file first."}
    [sent_call] = _input_items(second, "function_call")
    assert (sent_call["call_id"], sent_call["name"], json.loads(sent_call["arguments"])) == (
        "call_r1", "read", {"path": "a.py"})
    [result] = _input_items(second, "function_call_output")
    assert result["call_id"] == "call_r1" and "print('a')" in result["output"]
    kinds = [item["type"] for item in second["input"]]
    assert kinds.index("reasoning") < kinds.index("function_call") < kinds.index("function_call_output")
    assert second["input"][: len(first["input"])] == first["input"], "the history is the same prefix"

    assert "".join(event.text for event in log.of(ReasoningDelta)) == "Read the file first."
    assert "".join(event.text for event in log.of(TextDelta)) == "It prints a."
    usage = [(u.prompt_tokens, u.completion_tokens, u.cached_tokens) for u in log.of(UsageUpdated) if u.prompt_tokens]
    assert usage == [(1200, 30, 1024), (1300, 5, 1152)]
    assistant = [m for m in orchestrator.session.messages if m.role == "assistant"]
    assert assistant[0].reasoning == "Read the file first."
    assert assistant[0].tool_calls is not None and assistant[0].tool_calls[0].id == "call_r1"
    assert assistant[-1].content == "It prints a."


async def test_two_summary_parts_are_shown_apart(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(reasoning("First."), reasoning("Second."), text("ok")))
    orchestrator, log, _ = make_orchestrator(
        tmp_path, scripted_server.base_url, provider={"base_url": scripted_server.base_url, **RESPONSES}
    )
    assert (await orchestrator.run_input("go")).ok
    assert "".join(event.text for event in log.of(ReasoningDelta)) == "First.\n\nSecond."
    [message] = [m for m in orchestrator.session.messages if m.role == "assistant"]
    assert [item["encrypted_content"] for item in (message.extra or {})["responses_reasoning"]] == [
        "enc:First.", "enc:Second."]


async def test_effort_cache_key_and_a_refused_reasoning_setting(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    """``reasoning_effort`` is ``reasoning.effort``; ``prompt_cache_key`` is the session's id where configured; a
    model that refuses the reasoning setting (a 400 naming it) gets the request again without it, and the next."""
    scripted_server.add(
        error(400, "Unsupported parameter: 'reasoning.summary' is not supported with this model."),
        text("one"),
        text("two"),
    )
    provider = {"base_url": scripted_server.base_url, **RESPONSES, "reasoning_effort": "high",
                "prompt_cache_key": True}
    orchestrator, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, provider=provider)
    assert (await orchestrator.run_input("first")).ok
    assert (await orchestrator.run_input("second")).ok
    bodies = [request.body for request in scripted_server.requests]
    assert bodies[0]["reasoning"] == {"summary": "auto", "effort": "high"}
    assert [("reasoning" in body, body["prompt_cache_key"]) for body in bodies] == [
        (True, orchestrator.session.id), (False, orchestrator.session.id), (False, orchestrator.session.id)]


async def test_a_rate_limit_is_retried_on_the_responses_api(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(error(429, "Rate limit reached", retry_after=0.01), text("after the wait"))
    provider = {"base_url": scripted_server.base_url, "api": "responses", "max_retries": 1}
    orchestrator, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, provider=provider)
    outcome = await orchestrator.run_input("go")
    assert outcome.ok and outcome.text == "after the wait", outcome
    assert [request.path for request in scripted_server.requests] == ["/v1/responses"] * 2


@pytest.mark.parametrize("model", ["gpt-5-codex", "gpt-5.1-codex", "gpt-5.1-codex-max", "gpt-5.1-codex-mini",
                                   "gpt-5.2-codex", "codex-mini-latest"])
async def test_codex_models_go_to_the_responses_api(
    model: str, tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(text("hi"))
    orchestrator, _, _ = make_orchestrator(
        tmp_path, scripted_server.base_url, model=model, provider={"base_url": scripted_server.base_url}
    )
    assert (await orchestrator.run_input("hello")).ok
    assert [request.path for request in scripted_server.requests] == ["/v1/responses"]
    assert scripted_server.requests[0].body["model"] == model


@pytest.mark.parametrize("model", ["gpt-5", "gpt-4o", "openai/gpt-5-codex", "codex-model-of-mine"])
def test_other_models_keep_chat_completions(model: str) -> None:
    assert known_api(model) is None


async def test_a_profile_says_responses_and_chat_overrides_the_table(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(text("one"), text("two"))
    orchestrator, _, _ = make_orchestrator(
        tmp_path, scripted_server.base_url, model="gpt-5-codex",
        provider={"base_url": scripted_server.base_url, "api": "chat"},
        providers={"resp": {"base_url": scripted_server.base_url, "api": "responses", "model": "my-model"}},
    )
    assert (await orchestrator.run_input("first")).ok
    orchestrator.set_model("resp:")
    assert (await orchestrator.run_input("second")).ok
    assert [request.path for request in scripted_server.requests] == ["/v1/chat/completions", "/v1/responses"]
    assert scripted_server.requests[1].body["model"] == "my-model"


def test_a_wrong_api_value_names_the_file_and_the_key(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".coder").mkdir(parents=True)
    config_file = project / ".coder" / "config.json"
    config_file.write_text(json.dumps({"provider": {"api": "completions"}, "providers": {"x": {"api": 1}}}))
    loaded = load_config(project, env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")}, trust=True)
    problems = {(issue.source, issue.key): issue.message for issue in loaded.issues}
    assert "'chat' or 'responses'" in problems[(str(config_file), "provider.api")]
    assert "(got 1)" in problems[(str(config_file), "providers.x.api")]
    assert loaded.config.provider.api is None


def test_the_scripted_events_are_the_sdk_s_event_types() -> None:
    """The scripted route's events parse as the openai SDK's own Responses event models, in order."""
    from openai.types.responses import ResponseStreamEvent
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)
    turn = reply(reasoning("think"), text("answer"), tool_call("read", path="a.py"), usage=(10, 2), cached=4)
    events = response_events(turn, "gpt-5-codex", lambda: "call_1")
    parsed = [adapter.validate_python(payload) for _, payload in events]
    assert [event.type for event in parsed] == [name for name, _ in events]
    assert parsed[-1].type == "response.completed"
    assert parsed[-1].response.usage.input_tokens_details.cached_tokens == 4


async def test_doctor_asks_a_codex_model_on_the_responses_api(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.models = ("gpt-5.1-codex",)
    scripted_server.add(reply(tool_call("read_file", path="README.md")))
    orchestrator, log, _ = make_orchestrator(
        tmp_path, scripted_server.base_url, model="gpt-5.1-codex", provider={"base_url": scripted_server.base_url}
    )
    await orchestrator.run_input("/doctor")
    result = log.of(ServerChecked)[-1]
    assert result.ok and result.tool_calls == "native" and result.streams is True, result.text
    [asked] = [request for request in scripted_server.requests if request.method == "POST"]
    assert asked.path == "/v1/responses" and asked.body["tools"][0]["name"] == "read_file"


def test_the_history_as_responses_input_items() -> None:
    """Each Chat Completions message as the item the Responses API takes: images as ``input_image``, a later system
    message as ``developer``, an answer's text before its calls."""
    from engine.provider.responses_input import responses_body

    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}}
    messages = [
        {"role": "system", "content": "You are coder-tui."},
        {"role": "user", "content": [{"type": "text", "text": "what is in it?"}, image]},
        {"role": "assistant", "content": "Let me look.", "tool_calls": [
            {"id": "call_9", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"a\"}"}}]},
        {"role": "tool", "tool_call_id": "call_9", "name": "read", "content": "{\"ok\": true}"},
        {"role": "system", "content": "Summary of earlier work."},
    ]
    body = responses_body("gpt-5-codex", messages, [], {"stream": True})
    assert body["instructions"] == "You are coder-tui." and "tools" not in body and body["stream"] is True
    assert body["input"] == [
        {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "what is in it?"},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBO", "detail": "auto"}]},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Let me look."}]},
        {"type": "function_call", "call_id": "call_9", "name": "read", "arguments": "{\"path\":\"a\"}"},
        {"type": "function_call_output", "call_id": "call_9", "output": "{\"ok\": true}"},
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "Summary of earlier work."}]},
    ]
