"""SPEC 18: the Responses API as it streams. Each file in ``responses_streams/`` is an answer in the API's own event
sequence (text, tool calls, reasoning summaries, refusal, incomplete, failed, error events, an early end), replayed
byte for byte by the scripted server's ``/v1/responses`` route through the real openai SDK in a whole turn; the test
checks the answer, the reasoning, the tool calls, the usage, the error, and what the next request sends back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coder_tui.launch.headless import exit_code
from engine.events import UsageUpdated
from engine.storage.sessions.snapshot import load_snapshot
from tests.engine.provider.test_recorded_streams import check_message
from tests.support.fakes import make_orchestrator
from tests.support.recorded_streams import RecordedStream, load_recorded_streams
from tests.support.scenario import text
from tests.support.scripted_server import ScriptedServer

STREAMS = load_recorded_streams(Path(__file__).parent / "responses_streams")


@pytest.mark.parametrize("stream", STREAMS, ids=[stream.name for stream in STREAMS])
async def test_responses_stream(stream: RecordedStream, tmp_path: Path, scripted_server: ScriptedServer) -> None:
    expect = stream.expect
    (tmp_path / "a.py").write_text("print('a')\n")
    (tmp_path / "b.py").write_text("print('b')\n")
    scripted_server.add(stream.reply, text("Done."), text("Done again."))
    orchestrator, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, provider={
        "base_url": scripted_server.base_url, "max_retries": 0, "api": "responses"})

    outcome = await orchestrator.run_input("go")

    if "usage" in expect:
        reported = [(u.prompt_tokens, u.completion_tokens, u.context_tokens, u.cached_tokens)
                    for u in log.of(UsageUpdated)]
        usage = expect["usage"]
        assert (usage["prompt_tokens"], usage["completion_tokens"], usage["total_tokens"],
                usage["cached_tokens"]) in reported, reported
    if "error" in expect:
        assert outcome.reason == "error" and expect["error"] in (outcome.error or ""), outcome
        assert exit_code(outcome) == 1
    else:
        assert outcome.ok, outcome
    assistant = next((m for m in orchestrator.session.messages if m.role == "assistant"), None)
    if "error" in expect and "text" not in expect:
        assert assistant is None or not assistant.content
        return
    assert assistant is not None
    check_message(assistant, expect)
    saved = load_snapshot(orchestrator.session.path).messages
    assert next(m for m in saved if m.role == "assistant") == assistant, "the session file keeps every field"
    if len(scripted_server.requests) < 2:
        await orchestrator.run_input("next")
    follow_up = scripted_server.requests[1].body["input"]
    calls = [item for item in follow_up if item["type"] == "function_call"]
    assert [(c["call_id"], c["name"], c["arguments"]) for c in calls] == [
        (call.id, call.name, call.function.arguments) for call in assistant.tool_calls or ()]
    outputs = [item["call_id"] for item in follow_up if item["type"] == "function_call_output"]
    assert outputs == [call.id for call in assistant.tool_calls or ()]
    sent_reasoning = [item.get("encrypted_content") for item in follow_up if item["type"] == "reasoning"]
    assert sent_reasoning == expect.get("sent_back_reasoning", sent_reasoning)
    if assistant.content and not assistant.interrupted:
        said = [item for item in follow_up if item.get("role") == "assistant"]
        assert json.dumps(said).count(assistant.content) == 1
