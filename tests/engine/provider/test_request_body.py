"""The request body is the JSON the SDK would send, built from messages encoded once each."""

from __future__ import annotations

import json

import pytest

from engine.provider.base import ChatRequest
from engine.provider.openai_provider import OpenAIProvider
from engine.provider import request_body
from engine.provider.request_body import PIECES_FROM_BYTES, RequestBody, RequestBodyEncoder
from tests.support.fakes import record_calls
from tests.support.scenario import text
from tests.support.scripted_server import ScriptedServer

TOOLS = [{"type": "function", "function": {"name": "read", "parameters": {}}}]


def test_a_growing_history_gives_the_same_body_as_encoding_it_whole() -> None:
    encoder = RequestBodyEncoder()
    system = {"role": "system", "content": "sys"}
    history = [{"role": "user", "content": "héllo \"quoted\""}]
    for turn in range(4):
        messages = [system, *history]
        body = json.loads(bytes(encoder.encode("m", messages, TOOLS, {"stream": True})))
        assert body == {"model": "m", "messages": messages, "tools": TOOLS, "stream": True}
        history.append({"role": "assistant", "content": f"answer {turn}"})
    new_system = {"role": "system", "content": "another prompt"}
    body = json.loads(bytes(encoder.encode("m", [new_system, *history], [], {})))
    assert body == {"model": "m", "messages": [new_system, *history]}
    assert json.loads(bytes(encoder.encode("m", history[:1], [], {})))["messages"] == history[:1]


def test_a_new_system_prompt_or_a_new_message_encodes_only_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    encoded = record_calls(monkeypatch, request_body, "_dumps")
    encoder = RequestBodyEncoder()
    history = [{"role": "user", "content": f"message {n}"} for n in range(5)]
    encoder.encode("m", [{"role": "system", "content": "one"}, *history], [], {})
    encoded.clear()

    new_system = {"role": "system", "content": "two"}
    history.append({"role": "assistant", "content": "new"})
    body = json.loads(bytes(encoder.encode("m", [new_system, *history], [], {})))

    assert [value for value in encoded if isinstance(value, dict)] == [new_system, history[-1]]
    assert body["messages"] == [new_system, *history]


async def test_the_pieces_can_be_sent_again_and_add_up_to_the_length() -> None:
    body = RequestBodyEncoder().encode("m", [{"role": "user", "content": "héllo"}], TOOLS, {"stream": True})

    first = b"".join([piece async for piece in body])
    again = b"".join([piece async for piece in body])

    assert first == again == bytes(body)
    assert body.length == len(first)


async def test_a_large_body_sent_in_pieces_arrives_whole_with_its_length(scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("ok"))
    provider = OpenAIProvider(base_url=scripted_server.base_url, api_key="k", max_retries=0)
    large = "héllo " * (PIECES_FROM_BYTES // 5)
    request = ChatRequest(model="m", messages=[{"role": "user", "content": large}], tools=TOOLS)
    assert isinstance(RequestBodyEncoder().encode("m", request.messages, TOOLS, {}).content(), RequestBody)

    assert [chunk async for chunk in provider.stream(request)]
    await provider.aclose()

    [received] = scripted_server.requests
    assert "transfer-encoding" not in received.headers
    assert received.headers["content-type"] == "application/json"
    assert received.body["messages"] == request.messages and received.body["tools"] == TOOLS
