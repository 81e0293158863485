"""OpenAIProvider against the scripted server (SPEC 18): streaming, retries, readable errors, cancellation."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.errors import ProviderError
from engine.messages import Message, ToolDef, Usage
from engine.provider.assembler import StreamAssembler
from engine.provider.base import (
    ChatRequest,
    FinishChunk,
    ReasoningChunk,
    RetryNotice,
    StreamChunk,
    TextChunk,
    ToolCallChunk,
    UsageChunk,
)
from engine.provider.openai_provider import NO_API_KEY_PLACEHOLDER, OpenAIProvider
from tests.support.scenario import broken, error, reasoning, reply, stall, text, tool_call
from tests.support.scripted_server import ScriptedServer

REPO_ROOT = Path(__file__).resolve().parents[3]
READ_TOOL = ToolDef(name="read", description="Read a file.", parameters={"type": "object", "properties": {}})
REQUEST = ChatRequest(model="test-model", messages=[Message.user("hi").to_wire()], tools=[])


def provider_for(server: ScriptedServer, **options: float) -> OpenAIProvider:
    settings = {"timeout": 10, "max_retries": 3, "retry_base_delay": 0.01, "retry_max_delay": 0.05, **options}
    return OpenAIProvider(base_url=server.base_url, api_key="sk-test", **settings)


async def collect(provider: OpenAIProvider, request: ChatRequest = REQUEST) -> list[StreamChunk]:
    return [chunk async for chunk in provider.stream(request)]


def streamed_text(chunks: list[StreamChunk]) -> str:
    return "".join(chunk.text for chunk in chunks if isinstance(chunk, TextChunk))


async def test_text_streams_as_text_chunks_then_the_finish_reason(scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("hello world", chunk=3))

    chunks = await collect(provider_for(scripted_server))

    assert [chunk.text for chunk in chunks if isinstance(chunk, TextChunk)] == ["hel", "lo ", "wor", "ld"]
    assert chunks[-1] == FinishChunk("stop")


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
async def test_reasoning_is_read_from_either_field_name(scripted_server: ScriptedServer, field: str) -> None:
    scripted_server.add(reply(reasoning("First, look.", field=field), text("Done.")))

    chunks = await collect(provider_for(scripted_server))

    assert "".join(chunk.text for chunk in chunks if isinstance(chunk, ReasoningChunk)) == "First, look."
    assert streamed_text(chunks) == "Done."


async def test_several_tool_calls_assemble_into_one_message(scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(
        text("Looking."),
        tool_call("read", id="call_a", path="a.txt"),
        tool_call("bash", id="call_b", command="ls -la"),
        tool_call("grep", id="call_c", pattern="TODO", glob="*.py"),
    ))
    assembler = StreamAssembler()

    for chunk in await collect(provider_for(scripted_server)):
        assembler.feed(chunk)

    message = assembler.message()
    assert message.content == "Looking."
    assert [(call.id, call.name) for call in message.tool_calls] == [
        ("call_a", "read"), ("call_b", "bash"), ("call_c", "grep")]
    assert message.tool_calls[2].parsed_arguments() == {"pattern": "TODO", "glob": "*.py"}
    assert assembler.finish_reason == "tool_calls"


async def test_tool_call_deltas_keep_their_index(scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("read", id="c0", path="a"), tool_call("read", id="c1", path="b")))

    calls = [chunk for chunk in await collect(provider_for(scripted_server)) if isinstance(chunk, ToolCallChunk)]

    assert [(call.index, call.id, call.name) for call in calls if call.id] == [(0, "c0", "read"), (1, "c1", "read")]
    assert len(calls) > 4


async def test_usage_is_read_when_the_server_sends_it(scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("ok"), usage=(1200, 34)))

    chunks = await collect(provider_for(scripted_server))

    assert UsageChunk(Usage(prompt_tokens=1200, completion_tokens=34, total_tokens=1234)) in chunks


async def test_request_carries_model_messages_tools_and_asks_for_usage(scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("ok"))
    request = ChatRequest(model="qwen3", messages=REQUEST.messages, tools=[READ_TOOL.to_wire()])

    await collect(provider_for(scripted_server), request)

    (sent,) = scripted_server.requests
    assert sent.headers["authorization"] == "Bearer sk-test"
    assert sent.body["model"] == "qwen3"
    assert sent.body["messages"] == REQUEST.messages
    assert sent.body["tools"] == [READ_TOOL.to_wire()]
    assert sent.body["stream"] is True
    assert sent.body["stream_options"] == {"include_usage": True}


async def test_tools_are_left_out_when_there_are_none(scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("ok"))

    await collect(provider_for(scripted_server))

    assert "tools" not in scripted_server.requests[0].body


async def test_without_an_api_key_a_placeholder_is_sent(scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("ok"))

    await collect(OpenAIProvider(base_url=scripted_server.base_url, api_key=None))

    assert scripted_server.requests[0].headers["authorization"] == f"Bearer {NO_API_KEY_PLACEHOLDER}"


async def test_rate_limit_waits_as_long_as_retry_after_says(scripted_server: ScriptedServer) -> None:
    scripted_server.add(error(429, "Rate limit reached", retry_after=0.2), text("finally"))

    chunks = await collect(provider_for(scripted_server, retry_max_delay=30))

    notice = chunks[0]
    assert isinstance(notice, RetryNotice)
    assert (notice.attempt, notice.max_attempts, notice.delay_s) == (1, 3, 0.2)
    assert notice.reason == "rate limited (429): Rate limit reached"
    assert streamed_text(chunks) == "finally"


async def test_retry_after_ms_is_honoured(scripted_server: ScriptedServer) -> None:
    scripted_server.add(error(429, retry_after_ms=150), text("ok"))

    chunks = await collect(provider_for(scripted_server, retry_max_delay=30))

    assert chunks[0].delay_s == 0.15


async def test_server_error_is_retried_then_succeeds(scripted_server: ScriptedServer) -> None:
    scripted_server.add(error(500, "overloaded"), error(503), text("recovered"))

    chunks = await collect(provider_for(scripted_server))

    notices = [chunk for chunk in chunks if isinstance(chunk, RetryNotice)]
    assert [notice.attempt for notice in notices] == [1, 2]
    assert notices[0].reason == "server error (500): overloaded"
    assert all(0 < notice.delay_s <= 0.05 for notice in notices)
    assert streamed_text(chunks) == "recovered"
    assert len(scripted_server.requests) == 3


async def test_gives_up_after_max_retries_with_the_last_error(scripted_server: ScriptedServer) -> None:
    scripted_server.add(*[error(502, "bad gateway")] * 3)
    notices: list[StreamChunk] = []

    with pytest.raises(ProviderError, match=r"^server error \(502\): bad gateway$") as caught:
        async for chunk in provider_for(scripted_server, max_retries=2).stream(REQUEST):
            notices.append(chunk)

    assert len(notices) == 2 and all(isinstance(notice, RetryNotice) for notice in notices)
    assert (caught.value.status, caught.value.retryable) == (502, True)
    assert type(caught.value.__cause__).__name__ == "InternalServerError"


async def test_connection_refused_gives_a_readable_error(refused_port: int) -> None:
    base_url = f"http://127.0.0.1:{refused_port}/v1"
    provider = OpenAIProvider(base_url=base_url, api_key="k", max_retries=1, retry_base_delay=0.01)
    seen: list[StreamChunk] = []

    with pytest.raises(ProviderError) as caught:
        async for chunk in provider.stream(REQUEST):
            seen.append(chunk)

    assert str(caught.value) == f"cannot reach the model server at {base_url}: connection refused"
    assert "\n" not in str(caught.value)
    assert [type(chunk) for chunk in seen] == [RetryNotice]
    assert type(caught.value.__cause__).__name__ == "APIConnectionError"


async def test_unauthorized_says_to_check_the_api_key(scripted_server: ScriptedServer) -> None:
    scripted_server.add(error(401, "Incorrect API key provided: sk-test"))

    with pytest.raises(ProviderError) as caught:
        await collect(provider_for(scripted_server))

    assert str(caught.value) == (
        "authentication failed (401): Incorrect API key provided: sk-test; check the API key (OPENAI_API_KEY)")
    assert (caught.value.status, caught.value.retryable) == (401, False)
    assert len(scripted_server.requests) == 1


async def test_not_found_names_the_model_and_the_base_url(scripted_server: ScriptedServer) -> None:
    scripted_server.add(error(404, "The model `test-model` does not exist"))

    with pytest.raises(ProviderError) as caught:
        await collect(provider_for(scripted_server))

    assert str(caught.value) == (
        f"not found (404): The model `test-model` does not exist; check the model name 'test-model' and the base "
        f"URL '{scripted_server.base_url}'")


async def test_other_client_errors_show_the_server_message_without_retry(scripted_server: ScriptedServer) -> None:
    scripted_server.add(error(400, "context length exceeded:\n 9000 > 8192"))

    with pytest.raises(ProviderError, match=r"^request rejected \(400\): context length exceeded: 9000 > 8192$"):
        await collect(provider_for(scripted_server))

    assert len(scripted_server.requests) == 1


async def test_silent_server_times_out_with_a_readable_error(scripted_server: ScriptedServer) -> None:
    scripted_server.add(stall(seconds=30))

    with pytest.raises(ProviderError, match=r"^the model server did not answer within 0.3s$"):
        await collect(provider_for(scripted_server, timeout=0.3, max_retries=0))


async def test_broken_stream_raises_after_the_partial_chunks(scripted_server: ScriptedServer) -> None:
    scripted_server.add(broken(after=text("half of the ans", chunk=5)))
    received: list[StreamChunk] = []

    with pytest.raises(ProviderError, match=r"^the stream ended early: \w") as caught:
        async for chunk in provider_for(scripted_server).stream(REQUEST):
            received.append(chunk)

    assert streamed_text(received) == "half of the ans"
    assert not caught.value.retryable
    assert len(scripted_server.requests) == 1, "a stream that already yielded text must not be retried"


async def test_stream_broken_before_any_chunk_is_retried(scripted_server: ScriptedServer) -> None:
    scripted_server.add(broken(), text("second try"))

    chunks = await collect(provider_for(scripted_server))

    assert isinstance(chunks[0], RetryNotice)
    assert streamed_text(chunks) == "second try"


async def test_cancelling_the_consumer_closes_the_connection(scripted_server: ScriptedServer) -> None:
    scripted_server.add(stall(after=text("partial"), seconds=30))
    first_text = asyncio.Event()

    async def consume() -> None:
        async for chunk in provider_for(scripted_server).stream(REQUEST):
            if isinstance(chunk, TextChunk):
                first_text.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first_text.wait(), timeout=5)
    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(scripted_server.requests[0].client_closed.wait, 5)


async def test_abandoning_the_stream_closes_the_connection(scripted_server: ScriptedServer) -> None:
    scripted_server.add(stall(after=text("partial"), seconds=30))
    stream = provider_for(scripted_server).stream(REQUEST)

    assert isinstance(await anext(stream), TextChunk)
    await stream.aclose()

    assert await asyncio.to_thread(scripted_server.requests[0].client_closed.wait, 5)


def test_importing_the_provider_does_not_import_openai() -> None:
    probe = (
        "import sys, engine.provider.openai_provider as p\n"
        "p.OpenAIProvider(base_url=None, api_key=None)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('openai', 'httpx', 'httpx2'))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", "import json\n" + probe], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout) == []


async def test_a_field_the_server_refuses_is_left_out_and_the_request_sent_again(
    scripted_server: ScriptedServer,
) -> None:
    refused = "'messages.1' : property 'reasoning_content' is unsupported"
    scripted_server.add(error(400, refused), text("ok"), text("ok"))
    provider = provider_for(scripted_server)
    history = [
        Message.user("hi").to_wire(),
        Message(role="assistant", content="hello", extra={"reasoning_content": "r"}).to_wire(),
        Message.user("again").to_wire(),
    ]
    request = ChatRequest(model="test-model", messages=history, tools=[])

    assert streamed_text(await collect(provider, request)) == "ok"
    assert streamed_text(await collect(provider, request)) == "ok"

    sent = [recorded.body["messages"][1] for recorded in scripted_server.requests]
    assert [("reasoning_content" in message) for message in sent] == [True, False, False]
    assert history[1]["reasoning_content"] == "r"


async def test_reasoning_effort_and_profile_headers_are_sent(scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("ok"))
    provider = OpenAIProvider(base_url=scripted_server.base_url, api_key="k", reasoning_effort="high",
                              headers={"HTTP-Referer": "https://example.org", "X-Title": "coder-tui"})

    await collect(provider)

    recorded = scripted_server.requests[0]
    assert recorded.body["reasoning_effort"] == "high"
    assert recorded.headers["x-title"] == "coder-tui" and recorded.headers["http-referer"] == "https://example.org"


@pytest.mark.parametrize("raw_body", [True, False], ids=["raw body", "sdk body"])
async def test_both_ways_of_sending_give_the_same_request_body(scripted_server: ScriptedServer, raw_body: bool) -> None:
    scripted_server.add(text("one"), text("two"))
    provider = provider_for(scripted_server)
    provider._raw_body = raw_body  # an SDK without post(content=...) gets the body in extra_body
    history = [Message.user("hi").to_wire(), Message.assistant("yes").to_wire()]
    tools = [READ_TOOL.to_wire()]

    await collect(provider, ChatRequest(model="m", messages=history, tools=tools))
    history.append(Message.user("again").to_wire())
    await collect(provider, ChatRequest(model="m", messages=history, tools=tools))

    first, second = (recorded.body for recorded in scripted_server.requests)
    assert first == {"model": "m", "messages": history[:2], "tools": tools, "stream": True,
                     "stream_options": {"include_usage": True}}
    assert second["messages"] == history
