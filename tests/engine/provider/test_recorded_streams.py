"""SPEC 18: every server as it really streams. Each file in ``streams/`` is a recorded answer, replayed byte for
byte through the real openai SDK over HTTP in a whole turn; the test checks the answer text, the reasoning, the tool
calls, the saved session and the request that follows. Adding a recorded stream is adding one file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from coder_tui.launch.headless import exit_code
from engine.events import UsageUpdated
from engine.messages import Message
from engine.storage.sessions.snapshot import load_snapshot
from tests.support.fakes import make_orchestrator
from tests.support.recorded_streams import RecordedStream, load_recorded_streams
from tests.support.scenario import text
from tests.support.scripted_server import ScriptedServer

STREAMS = load_recorded_streams(Path(__file__).parent / "streams")


@pytest.mark.parametrize("stream", STREAMS, ids=[stream.name for stream in STREAMS])
async def test_recorded_stream(stream: RecordedStream, tmp_path: Path, scripted_server: ScriptedServer) -> None:
    expect = stream.expect
    (tmp_path / "a.py").write_text("print('a')\n")
    (tmp_path / "b.py").write_text("print('b')\n")
    if expect.get("repeat"):
        scripted_server.add(stream.reply, text("Done."), stream.reply, text("Done again."))
    else:
        scripted_server.add(stream.reply, text("Done."), text("Done again."))
    orchestrator, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, provider={
        "base_url": scripted_server.base_url, "max_retries": 0})

    outcome = await orchestrator.run_input("go")
    if "usage" in expect:
        reported = [(u.prompt_tokens, u.completion_tokens, u.context_tokens) for u in log.of(UsageUpdated)]
        usage = expect["usage"]
        assert (usage["prompt_tokens"], usage["completion_tokens"], usage["total_tokens"]) in reported, reported
    if expect.get("repeat"):
        assert (await orchestrator.run_input("again")).ok
        check_ids_unique(orchestrator.session.messages, expect.get("repeat_ids"))

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
        assert not assistant.tool_calls or "error" in expect
        await orchestrator.run_input("next")
    check_follow_up(scripted_server.requests[1].body["messages"], assistant, expect)


def check_message(assistant: Message, expect: dict[str, Any]) -> None:
    if "text" in expect:
        assert assistant.content == expect["text"]
    if "reasoning" in expect:
        assert assistant.reasoning == expect["reasoning"]
    if "refusal" in expect:
        assert assistant.refusal == expect["refusal"]
    if "extra" in expect:
        assert assistant.extra == expect["extra"]
    if "tool_calls" in expect:
        calls = assistant.tool_calls or []
        assert [(call.name, call.function.arguments) for call in calls] == [
            (call["name"], call["arguments"]) for call in expect["tool_calls"]
        ]
        for call, expected in zip(calls, expect["tool_calls"], strict=True):
            assert call.id == expected.get("id", call.id)
            assert call.extra == expected.get("extra")
        assert len({call.id for call in calls}) == len(calls), "every call has its own id"


def check_ids_unique(messages: tuple[Message, ...], expected: list[str] | None) -> None:
    """Every tool call of the history has its own id, and each result answers the call it follows."""
    ids = [call.id for m in messages if m.role == "assistant" for call in m.tool_calls or ()]
    assert len(ids) >= 2 and len(set(ids)) == len(ids), ids
    assert ids == (expected or ids)
    assert [m.tool_call_id for m in messages if m.role == "tool"] == ids


def check_follow_up(follow_up: list[dict[str, Any]], assistant: Message, expect: dict[str, Any]) -> None:
    """The next request carries the assistant message as it was saved, provider fields included."""
    sent = next(m for m in follow_up if m["role"] == "assistant")
    assert sent == assistant.to_wire()
    for key, value in expect.get("sent_back", {}).items():
        assert sent.get(key) == value, key
    for key in expect.get("not_sent_back", []):
        assert key not in sent
    for key, value in expect.get("sent_back_tool_call", {}).items():
        assert all(call.get(key) == value for call in sent["tool_calls"]), key
    if "tool_error" in expect:
        results = [json.loads(m["content"]) for m in follow_up if m["role"] == "tool"]
        assert any(not r["ok"] and expect["tool_error"] in r["error"] for r in results), results

