"""The tool-call ids a session's view holds (a new stream's calls must not reuse one; issue 32: kept as messages are
appended, not gathered from the whole history for every request)."""

from __future__ import annotations

from pathlib import Path

from engine.messages import FunctionCall, Message, ToolCall
from engine.orchestrator.session import Session


def calling(*ids: str) -> Message:
    return Message.assistant(None, [ToolCall(id=i, function=FunctionCall(name="read", arguments="{}")) for i in ids])


def answered(call_id: str) -> Message:
    return Message.tool(call_id, "read", "text")


def test_the_ids_follow_appends_a_rewind_and_a_compaction(tmp_path: Path) -> None:
    restored = [Message.user("go"), calling("call_0"), answered("call_0")]
    session = Session(tmp_path, model="m", tools=[], emit=lambda _event: None, store=None, messages=restored)
    assert set(session.tool_call_ids) == {"call_0"}

    for turn in range(1, 4):
        session.append(Message.user(f"turn {turn}"))
        session.append(calling(f"call_{turn}a", f"call_{turn}b"))
        session.append(answered(f"call_{turn}a"))
    assert set(session.tool_call_ids) == {"call_0", "call_1a", "call_1b", "call_2a", "call_2b", "call_3a", "call_3b"}

    session.rewind_to(6)  # keeps turn 1 (messages 3-5)
    assert set(session.tool_call_ids) == {"call_0", "call_1a", "call_1b"}
    session.append(calling("call_4"))
    assert set(session.tool_call_ids) == {"call_0", "call_1a", "call_1b", "call_4"}

    session.start_epoch(Message.user("summary"), kept=1, tokens_before=100, tokens_after=10)
    assert set(session.tool_call_ids) == {"call_4"}
    assert set(session.tool_call_ids) == {call.id for m in session.messages for call in m.tool_calls or ()}
