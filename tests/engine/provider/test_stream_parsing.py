"""The pieces under the raw stream reader: SSE decoding, error bodies, merged provider fields, refused fields."""

from __future__ import annotations

import pytest

from engine.provider.delta_merge import merge_fields
from engine.provider.rejected_fields import fields_named_in, without_fields
from engine.provider.server_errors import server_message
from engine.provider.sse import LineSplitter, SseDecoder, SseEvent


def decode(lines: list[str]) -> list[SseEvent]:
    decoder = SseDecoder()
    events = [event for line in lines if (event := decoder.line(line)) is not None]
    last = decoder.flush()
    return events + ([last] if last else [])


def test_sse_events_comments_names_and_multi_line_data() -> None:
    lines = [": keep-alive", "", "event: delta", "data:{\"a\":", "data: 1}", "id: 7", "", "data: [DONE]"]
    assert decode(lines) == [SseEvent("delta", '{"a":\n1}'), SseEvent("message", "[DONE]")]


def test_llama_cpp_error_line_is_an_error_event() -> None:
    assert decode(['error: {"message":"too long"}', "", "data: [DONE]", ""]) == [
        SseEvent("error", '{"message":"too long"}'),
        SseEvent("message", "[DONE]"),
    ]


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_a_body_split_anywhere_gives_the_same_lines(ending: str) -> None:
    lines = ['data: {"content":"héllo 漢字 🙂"}', "", ": ping", "data: [DONE]", "", "last without ending"]
    body = ending.join(lines).encode()
    for cut in range(len(body) + 1):
        splitter = LineSplitter()
        got = splitter.feed(body[:cut]) + splitter.feed(body[cut:]) + splitter.finish()
        assert got == lines, cut


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"error": {"message": "bad key", "type": "x"}}, "bad key"),
        ([{"error": {"code": 400, "message": "listed", "status": "INVALID_ARGUMENT"}}], "listed"),
        ({"object": "error", "message": "vllm says no", "code": 400}, "vllm says no"),
        ({"detail": [{"msg": "field required"}]}, "field required"),
        ({"error": "ollama says no"}, "ollama says no"),
        ("plain words\n", "plain words"),
        ("<html><head><title>502 Bad Gateway</title></head></html>", "502 Bad Gateway"),
        ({"unrelated": 1}, None),
    ],
)
def test_server_message_reads_every_error_body_shape(body: object, message: str | None) -> None:
    assert server_message(body) == message


def test_provider_fields_merge_text_by_key_and_list_items_by_index() -> None:
    merged: dict = {}
    merge_fields(merged, {"reasoning_content": "a", "reasoning_details": [{"index": 0, "type": "t", "text": "x"}]})
    merge_fields(merged, {"reasoning_content": "b", "reasoning_details": [{"index": 0, "type": "t", "text": "y"}]})
    merge_fields(merged, {"reasoning_details": [{"index": 0, "signature": "s"}, {"index": 1, "data": "enc"}]})
    assert merged == {
        "reasoning_content": "ab",
        "reasoning_details": [{"index": 0, "type": "t", "text": "xy", "signature": "s"}, {"index": 1, "data": "enc"}],
    }


def test_a_value_repeated_on_every_delta_is_not_doubled() -> None:
    merged: dict = {}
    for _ in range(2):
        merge_fields(merged, {"extra_content": {"google": {"thought_signature": "sig"}}})
    assert merged == {"extra_content": {"google": {"thought_signature": "sig"}}}


MESSAGES = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": None, "reasoning_content": "r",
     "tool_calls": [{"id": "c", "type": "function", "function": {"name": "read", "arguments": "{}"}, "x_sig": "s"}]},
]


def test_fields_a_strict_server_names_are_found_and_left_out() -> None:
    refused = "'messages.1' : for 'role:assistant' ... property 'reasoning_content' is unsupported"
    assert fields_named_in(refused, MESSAGES) == {"reasoning_content"}
    assert fields_named_in("The reasoning_content in the thinking mode must be passed back", MESSAGES) == set()
    stripped = without_fields(MESSAGES, {"reasoning_content", "x_sig"})
    assert "reasoning_content" not in stripped[1] and "x_sig" not in stripped[1]["tool_calls"][0]
    assert MESSAGES[1]["reasoning_content"] == "r", "the session's own messages are unchanged"
