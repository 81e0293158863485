"""The request body is the JSON the SDK would send, built from messages encoded once each."""

from __future__ import annotations

import json

from engine.provider.request_body import RequestBodyEncoder

TOOLS = [{"type": "function", "function": {"name": "read", "parameters": {}}}]


def test_a_growing_history_gives_the_same_body_as_encoding_it_whole() -> None:
    encoder = RequestBodyEncoder()
    system = {"role": "system", "content": "sys"}
    history = [{"role": "user", "content": "héllo \"quoted\""}]
    for turn in range(4):
        messages = [system, *history]
        body = json.loads(encoder.encode("m", messages, TOOLS, {"stream": True}))
        assert body == {"model": "m", "messages": messages, "tools": TOOLS, "stream": True}
        history.append({"role": "assistant", "content": f"answer {turn}"})
    new_system = {"role": "system", "content": "another prompt"}
    body = json.loads(encoder.encode("m", [new_system, *history], [], {}))
    assert body == {"model": "m", "messages": [new_system, *history]}
    assert json.loads(encoder.encode("m", history[:1], [], {}))["messages"] == history[:1]
