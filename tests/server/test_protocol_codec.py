"""The engine protocol's codec: every protocol message, engine event and interaction type survives a trip through
one JSON line. The types are found by walking the protocol's roots, so an event added to ``Event`` is covered here
without a change."""

from __future__ import annotations

import dataclasses
import json
from enum import Enum
from typing import Any, Literal, Union, get_args, get_origin

import pytest

from engine.command_results import CommandReply, ConversationRewound, SessionsListed
from engine.events import MessageAdded, ModeChanged, TextDelta, ToolCallScheduled
from engine.settings_results import StatusShown
from engine.messages import FunctionCall, Message, ToolCall
from engine.protocol import CODEC, Codec, EngineEvent, MessageRecord, ProtocolError, ProtocolMessage, RunInput
from engine.protocol.codec import _MessageHint, _type_hints

# The engine side decodes messages to the real pydantic model, so a round trip compares equal.
ENGINE_CODEC = Codec([ProtocolMessage], message_from_record=Message.from_record)
SAMPLE_MESSAGE = Message.assistant(
    "done", tool_calls=[ToolCall(id="c1", function=FunctionCall(name="read", arguments='{"path": "a.py"}'))],
    reasoning="why",
)


def sample(hint: Any) -> Any:
    """A value of this type with every optional part filled in, so every field is exercised."""
    origin = get_origin(hint)
    if hint is Any:
        return {"nested": [1, "two", None, {"type": "not a tag"}]}
    if origin is Union or (origin is not None and origin.__name__ == "UnionType"):
        members = [arg for arg in get_args(hint) if arg is not type(None)]
        return sample(members[-1])
    if origin is Literal:
        return get_args(hint)[-1]
    if origin is tuple:
        args = get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return (sample(args[0]), sample(args[0]))
        return tuple(sample(arg) for arg in args)
    if origin is list:
        return [sample(get_args(hint)[0])]
    if origin is dict:
        return {"key": sample(get_args(hint)[1])}
    if hint is _MessageHint:
        return SAMPLE_MESSAGE
    if isinstance(hint, type) and issubclass(hint, Enum):
        return list(hint)[-1]
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        hints = _type_hints(hint)
        return hint(**{field.name: sample(hints[field.name]) for field in dataclasses.fields(hint)})
    return {str: "text\nwith \"quotes\" and ünïcode", int: 7, float: 1.5, bool: True}[hint]


@pytest.mark.parametrize("name", sorted(CODEC.types))
def test_every_protocol_type_round_trips_through_one_json_line(name: str) -> None:
    value = sample(ENGINE_CODEC.types[name])
    line = ENGINE_CODEC.dumps(value)
    assert "\n" not in line
    assert ENGINE_CODEC.loads(line) == value


def test_the_protocol_knows_every_event_and_interaction_type() -> None:
    import engine.events as events
    import engine.interaction as interaction

    for member in get_args(events.Event):
        assert member.__name__ in CODEC.types
    for module in (events, interaction):
        for name, value in vars(module).items():
            if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module.__name__:
                assert name in CODEC.types, f"{name} cannot cross the engine protocol"


def test_messages_reach_the_ui_as_records_without_pydantic() -> None:
    decoded = CODEC.loads(CODEC.dumps(EngineEvent(MessageAdded(SAMPLE_MESSAGE))))
    message = decoded.event.message
    assert isinstance(message, MessageRecord)
    assert message.role == "assistant" and message.content == "done" and message.reasoning == "why"
    assert message.tool_calls[0].name == "read" and message.tool_calls[0].parsed_arguments() == {"path": "a.py"}
    assert message.to_record() == SAMPLE_MESSAGE.to_record()


def test_any_fields_carry_plain_json_even_with_a_type_key() -> None:
    arguments = {"messages": [{"type": "Notice", "role": "user"}], "count": (1, 2)}
    decoded = CODEC.loads(CODEC.dumps(EngineEvent(ToolCallScheduled("c1", "todo", "", arguments)))).event
    assert decoded.arguments == {"messages": [{"type": "Notice", "role": "user"}], "count": [1, 2]}


def test_a_typed_command_result_crosses_as_its_type_with_its_rows() -> None:
    listed = SessionsListed("/resume", "recent sessions", ({"id": "a1", "title": "fix", "own": True, "type": "x"},))
    rewound = ConversationRewound("/rewind", "rewound", "redo it", ({"role": "user", "content": "hi"},), ("a.txt",))
    for result in (listed, rewound, StatusShown(
        "/status", "status", (("model", "m"),), "m", None, None, "s1", "default", "default", 1, 2, "exact",
        "configured", "landlock", False, {"srv": "running"},
    )):
        decoded = CODEC.loads(CODEC.dumps(EngineEvent(result, "s1")))
        assert decoded == EngineEvent(result, "s1") and isinstance(decoded.event, CommandReply)


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("not json", "not JSON"),
        ("[1, 2]", "JSON object with a 'type'"),
        ('{"type": "NoSuchThing"}', "unknown message type 'NoSuchThing'"),
        ('{"type": "RunInput", "text": "hi"}', "bad RunInput"),
    ],
)
def test_a_bad_line_is_a_protocol_error_naming_the_problem(line: str, error: str) -> None:
    with pytest.raises(ProtocolError, match=error):
        CODEC.loads(line)


def test_a_type_that_cannot_cross_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match="object cannot cross"):
        CODEC.dumps(RunInput("i1", object()))  # type: ignore[arg-type]


def test_the_wire_form_is_type_plus_fields() -> None:
    assert json.loads(CODEC.dumps(EngineEvent(TextDelta("hi"), "s1"))) == {
        "type": "EngineEvent", "event": {"type": "TextDelta", "text": "hi"}, "session_id": "s1"
    }
    # A line of an engine that does not name the session still reads.
    assert CODEC.loads('{"type": "EngineEvent", "event": {"type": "ModeChanged", "mode": "plan"}}') == EngineEvent(
        ModeChanged("plan")
    )
