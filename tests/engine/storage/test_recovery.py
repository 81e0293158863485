"""SPEC 12 and 14: a history loaded after a crash is repaired so it is valid for the API again."""

from __future__ import annotations

import json

from engine.messages import FunctionCall, Message, ToolCall
from engine.storage.sessions.recovery import INTERRUPTED_ERROR, open_tool_calls, repair_history


def call(call_id: str, name: str = "bash") -> ToolCall:
    return ToolCall(id=call_id, function=FunctionCall(name=name, arguments="{}"))


def result(call_id: str, name: str = "bash") -> Message:
    return Message.tool(call_id, name, '{"ok": true}')


def assert_valid_for_the_api(messages: list[Message]) -> None:
    """Every tool call is answered by the tool messages right after its assistant message, and every tool message
    answers a call of the assistant message it follows."""
    expected: set[str] = set()
    for message in messages:
        if message.role == "tool":
            assert message.tool_call_id in expected, f"orphan result {message.tool_call_id}"
            expected.discard(message.tool_call_id or "")
            continue
        assert not expected, f"calls without a result: {expected}"
        expected = {c.id for c in message.tool_calls or []}
    assert not expected, f"calls without a result: {expected}"


def test_a_call_with_no_result_gets_an_interrupted_result_right_after_the_existing_ones() -> None:
    history = [
        Message.user("run both"),
        Message.assistant(None, [call("c1"), call("c2"), call("c3", "read")]),
        result("c1"),
    ]
    repaired, notes = repair_history(history)
    assert repaired[:3] == history
    assert [(m.role, m.tool_call_id, m.name) for m in repaired[3:]] == [("tool", "c2", "bash"), ("tool", "c3", "read")]
    assert json.loads(repaired[3].content or "") == {"ok": False, "error": INTERRUPTED_ERROR}
    assert len(notes) == 2 and "c2" in notes[0] and "c3" in notes[1]
    assert_valid_for_the_api(repaired)


def test_the_synthetic_result_comes_before_any_later_message() -> None:
    history = [
        Message.assistant(None, [call("c1")]),
        Message.user("a later request after a crash"),
        Message.assistant("ok"),
    ]
    repaired, _ = repair_history(history)
    assert [m.role for m in repaired] == ["assistant", "tool", "user", "assistant"]
    assert repaired[1].tool_call_id == "c1"
    assert_valid_for_the_api(repaired)


def test_a_complete_history_is_unchanged() -> None:
    history = [Message.user("hi"), Message.assistant(None, [call("c1")]), result("c1"), Message.assistant("done")]
    assert repair_history(history) == (history, [])


def test_a_trailing_partial_answer_is_kept_and_marked_interrupted() -> None:
    partial = Message(role="assistant", content="I was saying", interrupted=True)
    repaired, notes = repair_history([Message.user("explain"), partial])
    assert repaired[-1] == partial and repaired[-1].to_record()["interrupted"] is True
    assert notes == ["the last answer was cut off; it is kept as it was, marked interrupted"]


def test_the_call_awaiting_approval_and_those_after_it_stay_open_for_resume() -> None:
    history = [
        Message.user("do three things"),
        Message.assistant(None, [call("c1"), call("c2"), call("c3"), call("c4")]),
        result("c1"),
    ]
    # c2 started running and the process died; c3's approval dialog was open.
    repaired, notes = repair_history(history, resume_from_call="c3")
    assert [m.tool_call_id for m in repaired[3:]] == ["c2"]
    assert [c.id for c in open_tool_calls(repaired)] == ["c3", "c4"]
    assert len(notes) == 1


def test_resume_from_a_call_that_already_has_its_result_repairs_as_usual() -> None:
    history = [Message.assistant(None, [call("c1"), call("c2")]), result("c1")]
    repaired, _ = repair_history(history, resume_from_call="c1")
    assert open_tool_calls(repaired) == []
    assert_valid_for_the_api(repaired)


def test_open_tool_calls_is_empty_when_the_history_ends_otherwise() -> None:
    assert open_tool_calls([]) == []
    assert open_tool_calls([Message.assistant(None, [call("c1")]), result("c1"), Message.assistant("done")]) == []
    assert [c.id for c in open_tool_calls([Message.assistant(None, [call("c1")])])] == ["c1"]
