"""StreamAssembler joins streamed deltas into one assistant message (SPEC 18: tool-call deltas by index)."""

from __future__ import annotations

import json
import re

from engine.messages import Message, Usage
from engine.provider.assembler import StreamAssembler
from engine.provider.base import (
    ExtraChunk,
    FinishChunk,
    ReasoningChunk,
    RetryNotice,
    TextChunk,
    ToolCallChunk,
    UsageChunk,
)


def assemble(*chunks) -> StreamAssembler:
    assembler = StreamAssembler()
    for chunk in chunks:
        assembler.feed(chunk)
    return assembler


def split_everywhere(index: int, arguments: str) -> list[ToolCallChunk]:
    return [ToolCallChunk(index=index, arguments=character) for character in arguments]


def test_text_and_reasoning_are_joined_in_order() -> None:
    assembler = assemble(ReasoningChunk("let me "), TextChunk("Hel"), ReasoningChunk("think"), TextChunk("lo"))

    message = assembler.message()

    assert (assembler.text, assembler.reasoning) == ("Hello", "let me think")
    assert (message.role, message.content, message.reasoning, message.tool_calls) == (
        "assistant", "Hello", "let me think", None)


def test_arguments_split_at_every_character_are_joined() -> None:
    arguments = json.dumps({"path": "src/ü.py", "content": 'say "hi"\n'})

    assembler = assemble(ToolCallChunk(0, id="call_a", name="write"), *split_everywhere(0, arguments))

    (call,) = assembler.message().tool_calls
    assert (call.id, call.name, call.function.arguments) == ("call_a", "write", arguments)
    assert call.parsed_arguments()["content"] == 'say "hi"\n'


def test_three_calls_interleaved_by_index_come_out_in_index_order() -> None:
    assembler = assemble(
        ToolCallChunk(2, id="c2", name="grep", arguments='{"pat'),
        ToolCallChunk(0, id="c0", name="read"),
        ToolCallChunk(1, id="c1", name="list", arguments='{"path"'),
        ToolCallChunk(0, arguments='{"path": "a"}'),
        ToolCallChunk(2, arguments='tern": "x"}'),
        ToolCallChunk(1, arguments=': "."}'),
    )

    calls = assembler.message().tool_calls

    assert [(call.id, call.name) for call in calls] == [("c0", "read"), ("c1", "list"), ("c2", "grep")]
    assert [call.parsed_arguments() for call in calls] == [{"path": "a"}, {"path": "."}, {"pattern": "x"}]


def test_id_and_name_are_taken_from_whichever_delta_carries_them() -> None:
    assembler = assemble(
        ToolCallChunk(0, arguments='{"command":'),
        ToolCallChunk(0, name="bash", arguments=' "ls"'),
        ToolCallChunk(0, id="late_id", arguments="}"),
    )

    (call,) = assembler.message().tool_calls

    assert (call.id, call.name, call.parsed_arguments()) == ("late_id", "bash", {"command": "ls"})


def test_id_and_name_repeated_on_every_delta_are_not_doubled() -> None:
    assembler = assemble(
        ToolCallChunk(0, id="c0", name="read", arguments='{"path"'),
        ToolCallChunk(0, id="c0", name="read", arguments=': "a"}'),
    )

    (call,) = assembler.message().tool_calls

    assert (call.id, call.name, call.parsed_arguments()) == ("c0", "read", {"path": "a"})


def test_missing_ids_get_stable_generated_ids_unique_per_message() -> None:
    first = assemble(ToolCallChunk(0, name="read"), ToolCallChunk(1, name="list"))
    second = assemble(ToolCallChunk(0, name="read"))

    ids = [call.id for call in first.message().tool_calls]

    assert all(re.fullmatch(r"call_\d+_\d+", call_id) for call_id in ids)
    assert ids[0].startswith("call_0_") and ids[1].startswith("call_1_")
    assert ids == [call.id for call in first.message().tool_calls], "ids must not change between reads"
    assert second.message().tool_calls[0].id not in ids


def test_a_call_that_never_gets_a_name_is_kept_with_an_empty_name_and_a_problem_note() -> None:
    assembler = assemble(
        ToolCallChunk(0, id="c0", name="read", arguments="{}"),
        ToolCallChunk(1, id="c1", arguments='{"x": 1}'),
    )

    calls = assembler.message().tool_calls

    assert [(call.id, call.name) for call in calls] == [("c0", "read"), ("c1", "")]
    assert len(assembler.problems) == 1
    assert "without a function name" in assembler.problems[0] and '{"x": 1}' in assembler.problems[0]


def test_usage_and_finish_reason_are_kept() -> None:
    usage = Usage(prompt_tokens=10, completion_tokens=5, total_tokens=15)

    assembler = assemble(TextChunk("hi"), FinishChunk("stop"), UsageChunk(usage))

    assert assembler.usage == usage
    assert assembler.finish_reason == "stop"


def test_retry_notices_do_not_change_the_message() -> None:
    assembler = assemble(RetryNotice(1, 3, 0.5, "server error (500)"), TextChunk("ok"))

    assert assembler.message().content == "ok"


def test_interrupted_message_keeps_its_partial_text() -> None:
    message = assemble(TextChunk("half an ans")).message(interrupted=True)

    assert (message.content, message.interrupted) == ("half an ans", True)
    assert "interrupted" not in message.to_wire()


def test_tool_calls_only_message_has_no_content() -> None:
    message = assemble(ToolCallChunk(0, id="c0", name="todoread")).message()

    assert message.content is None
    assert message.to_wire()["tool_calls"][0]["function"] == {"name": "todoread", "arguments": ""}


def test_provider_fields_round_trip_through_the_session_record() -> None:
    assembler = assemble(
        ExtraChunk({"reasoning_content": "think"}),
        ExtraChunk({"reasoning_content": "ing"}),
        ToolCallChunk(0, id="c0", name="read", arguments="{}", extra={"extra_content": {"google": {"sig": "s"}}}),
    )
    message = assembler.message()

    record = json.loads(json.dumps(message.to_record()))

    assert record["reasoning_content"] == "thinking"
    assert record["tool_calls"][0]["extra_content"] == {"google": {"sig": "s"}}
    assert Message.from_record(record) == message
    assert message.to_wire()["reasoning_content"] == "thinking"
