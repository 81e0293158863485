"""SPEC 10: compaction of the older context into a structured summary, keeping the recent ~30% verbatim."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from engine.config.schema import CompactionConfig
from engine.context.compaction import (
    SUMMARY_HEADER,
    SUMMARY_INSTRUCTIONS,
    CompactionState,
    compact,
    compact_if_needed,
    model_summariser,
    plan_compaction,
    render_message,
    should_compact,
    summary_request,
)
from engine.context.tokens import TokenCounter
from engine.errors import ProviderError
from engine.messages import FunctionCall, Message, ToolCall
from tests.support.scenario import text
from tests.support.scripted_server import ScriptedServer

SUMMARY = "## Goal\nFix the parser.\n## Task state\nTests pass."


def call(call_id: str, name: str = "read", **arguments: object) -> ToolCall:
    return ToolCall(id=call_id, function=FunctionCall(name=name, arguments=json.dumps(arguments)))


def long_session(rounds: int, body: str = "x" * 400) -> list[Message]:
    """Requests, assistant messages calling two tools each, their results and an answer, ``rounds`` times."""
    messages: list[Message] = []
    for i in range(rounds):
        messages.append(Message.user(f"request {i}: look at file_{i}.py"))
        calls = [call(f"c{i}a", path=f"file_{i}.py"), call(f"c{i}b", "grep", pattern=f"def f{i}")]
        messages.append(Message.assistant("Looking.", calls))
        messages.append(Message.tool(f"c{i}a", "read", json.dumps({"ok": True, "content": body})))
        messages.append(Message.tool(f"c{i}b", "grep", json.dumps({"ok": True, "matches": [body[:100]]})))
        messages.append(Message.assistant(f"Answer {i}: file_{i}.py is fine."))
    return messages


def assert_valid_history(messages: Sequence[Message]) -> None:
    """Every tool result answers a call of the assistant message just before its run of results."""
    open_calls: set[str] = set()
    for message in messages:
        if message.role == "tool":
            assert message.tool_call_id in open_calls, f"tool result {message.tool_call_id} without its call"
            open_calls.discard(message.tool_call_id)
        else:
            assert not open_calls, f"calls {open_calls} left without results"
            open_calls = {c.id for c in message.tool_calls or []}
    assert not open_calls


class FakeSummariser:
    def __init__(self, answer: str = SUMMARY, error: Exception | None = None) -> None:
        self.answer = answer
        self.error = error
        self.requests: list[list[Message]] = []

    async def __call__(self, request: list[Message]) -> str:
        self.requests.append(request)
        if self.error is not None:
            raise self.error
        return self.answer


def test_should_compact_at_70_percent_of_the_window() -> None:
    assert should_compact(70_000, 100_000, 0.7)
    assert not should_compact(69_999, 100_000, 0.7)
    assert should_compact(90, 100, 0.9) and not should_compact(89, 100, 0.9)
    with pytest.raises(ValueError, match="context window"):
        should_compact(1, 0, 0.7)


def test_plan_keeps_the_most_recent_30_percent() -> None:
    counter = TokenCounter("gpt-4")
    messages = [Message.user("word " * 100) for _ in range(10)]
    plan = plan_compaction(messages, counter, 0.3)
    assert plan is not None and plan.split == 7
    assert plan.kept_tokens == sum(counter.count_message(m) for m in messages[7:])
    assert plan.summarised_tokens + plan.kept_tokens == sum(counter.count_message(m) for m in messages)


def test_plan_never_separates_tool_calls_from_their_results() -> None:
    counter = TokenCounter("gpt-4")
    big = "y" * 2000
    messages = [
        Message.user("start " * 300),
        Message.assistant("calling", [call("a"), call("b"), call("c")]),
        Message.tool("a", "read", big),
        Message.tool("b", "read", big),
        Message.tool("c", "read", big),
        Message.assistant("done"),
    ]
    plan = plan_compaction(messages, counter, 0.3)
    assert plan is not None
    assert messages[plan.split].role != "tool"
    assert_valid_history([Message.user("summary"), *messages[plan.split :]])


def test_plan_split_is_always_at_a_safe_boundary() -> None:
    counter = TokenCounter("gpt-4")
    rng = random.Random(7)
    for _ in range(200):
        messages = long_session(rng.randint(1, 6), body="z" * rng.randint(1, 3000))
        ratio = rng.choice([0.1, 0.3, 0.5, 0.9])
        plan = plan_compaction(messages, counter, ratio)
        assert plan is not None
        assert 1 <= plan.split < len(messages)
        assert messages[plan.split].role != "tool"
        assert_valid_history([Message.user("summary"), *messages[plan.split :]])


def test_nothing_to_summarise_without_a_safe_boundary() -> None:
    counter = TokenCounter("gpt-4")
    assert plan_compaction([Message.user("only one")], counter) is None
    assert plan_compaction([], counter) is None
    with pytest.raises(ValueError, match="keep_ratio"):
        plan_compaction([Message.user("a"), Message.user("b")], counter, 1.0)


async def test_compaction_replaces_the_older_part_with_a_structured_summary() -> None:
    counter = TokenCounter("gpt-4")
    messages = long_session(10)
    summarise = FakeSummariser()
    result = await compact(messages, summarise, counter=counter, system="You are a coding agent.")
    assert result.applied and result.summary == SUMMARY
    assert result.tokens_after < result.tokens_before
    head = result.messages[0]
    assert head.role == "user" and head.content is not None
    assert head.content.startswith(SUMMARY_HEADER) and SUMMARY in head.content
    kept = result.messages[1:]
    # The recent messages are the very same objects, untouched.
    assert all(a is b for a, b in zip(kept, messages[len(messages) - len(kept) :], strict=True))
    assert_valid_history(result.messages)
    # The new total is what a count of the new history gives.
    assert result.tokens_after == counter.total(result.messages, system="You are a coding agent.")
    [request] = summarise.requests
    assert request[0].role == "system" and request[0].content == SUMMARY_INSTRUCTIONS
    sections = ("## Goal", "## Constraints", "## Key facts", "## Files touched", "## Actions done", "## Task state")
    assert all(section in SUMMARY_INSTRUCTIONS for section in sections)
    transcript = request[1].content or ""
    assert "request 0: look at file_0.py" in transcript
    assert "[assistant calls read]" in transcript and "[tool result: grep]" in transcript
    assert "Answer 9" not in transcript


async def test_a_compaction_that_does_not_shrink_is_dropped() -> None:
    counter = TokenCounter("gpt-4")
    messages = long_session(3, body="short")
    result = await compact(messages, FakeSummariser("very long summary " * 500), counter=counter)
    assert not result.applied
    assert result.messages == tuple(messages)
    assert "did not shrink" in result.reason
    assert result.tokens_after > result.tokens_before


async def test_an_empty_summary_is_dropped() -> None:
    counter = TokenCounter("gpt-4")
    result = await compact(long_session(5), FakeSummariser("   "), counter=counter)
    assert not result.applied and "empty summary" in result.reason


async def test_automatic_compaction_runs_only_past_the_threshold() -> None:
    counter = TokenCounter("gpt-4")
    messages = long_session(10)
    tokens = counter.total(messages)
    summarise = FakeSummariser()
    config = CompactionConfig()
    state = CompactionState()
    below = await compact_if_needed(
        messages, summarise, counter=counter, config=config, window=tokens * 2, state=state
    )
    assert below is None and summarise.requests == []
    disabled = await compact_if_needed(
        messages, summarise, counter=counter, config=CompactionConfig(enabled=False), window=tokens, state=state
    )
    assert disabled is None and summarise.requests == []
    result = await compact_if_needed(messages, summarise, counter=counter, config=config, window=tokens, state=state)
    assert result is not None and result.applied and state.failed_at is None


async def test_a_failed_compaction_is_not_retried_automatically() -> None:
    counter = TokenCounter("gpt-4")
    messages = long_session(3, body="short")
    tokens = counter.total(messages)
    summarise = FakeSummariser("very long summary " * 500)
    state = CompactionState()
    config = CompactionConfig()
    first = await compact_if_needed(messages, summarise, counter=counter, config=config, window=tokens, state=state)
    assert first is not None and not first.applied
    assert state.failed_at == tokens
    again = await compact_if_needed(messages, summarise, counter=counter, config=config, window=tokens, state=state)
    assert again is None and len(summarise.requests) == 1
    # /compact forces one all the same.
    forced = await compact_if_needed(
        messages, summarise, counter=counter, config=config, window=tokens, state=state, force=True
    )
    assert forced is not None and len(summarise.requests) == 2
    # Once the context has grown by a tenth of the window, there is new material: automatic compaction may try.
    state.failed_at = 5000
    assert state.allows_automatic(5000 + 1000, 10_000)
    assert not state.allows_automatic(5000 + 999, 10_000)


async def test_a_summary_request_that_fails_is_remembered_and_raised() -> None:
    counter = TokenCounter("gpt-4")
    messages = long_session(5)
    tokens = counter.total(messages)
    state = CompactionState()
    with pytest.raises(ProviderError):
        await compact_if_needed(
            messages,
            FakeSummariser(error=ProviderError("server down")),
            counter=counter,
            config=CompactionConfig(),
            window=tokens,
            state=state,
        )
    assert state.failed_at == tokens


def test_transcript_caps_huge_messages_keeping_both_ends() -> None:
    content = "BEGIN" + "m" * 50_000 + "END"
    rendered = render_message(Message.tool("c1", "read", content))
    assert rendered.startswith("[tool result: read]\nBEGIN") and rendered.endswith("END")
    assert "characters left out" in rendered and len(rendered) < 3200
    request = summary_request([Message.user("hi")])
    assert "<history>\n[user]\nhi\n</history>" in (request[1].content or "")


async def test_long_scripted_session_compacts_through_the_model(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    from engine.provider.openai_provider import OpenAIProvider

    scripted_server.add(text(SUMMARY))
    provider = OpenAIProvider(base_url=scripted_server.base_url, api_key="sk-test", max_retries=0)
    counter = TokenCounter("scripted-model")
    messages = long_session(40)
    try:
        result = await compact(messages, model_summariser(provider, "scripted-model"), counter=counter)
    finally:
        await provider.aclose()
    assert result.applied and result.summary == SUMMARY
    assert result.tokens_after < result.tokens_before * 0.5
    assert_valid_history(result.messages)
    [request] = scripted_server.requests
    body = request.body
    assert body["model"] == "scripted-model" and "tools" not in body
    assert body["messages"][0] == {"role": "system", "content": SUMMARY_INSTRUCTIONS}
    assert "request 0: look at file_0.py" in body["messages"][1]["content"]
