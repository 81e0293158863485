"""Issue 18 through the orchestrator and the scripted server: compaction twice in one session loses nothing. The
database keeps every message of every epoch with each edit's diff, a resumed session (``--continue``) sends only
the latest epoch's view, and the full history has one "context compacted here" marker per compaction."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.context.compaction import SUMMARY_HEADER, SUMMARY_INSTRUCTIONS
from engine.events import MessageAdded, SubagentEvent
from engine.messages import Message
from engine.storage.sessions.records import CompactionMarker, HistoryMessage
from engine.storage.store import Store
from tests.support.fakes import CREATED, make_orchestrator
from tests.support.scenario import ReplyLike, reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

FILLER = "The parser reads tokens, builds a tree, and the checker walks it to report each error it finds. " * 6


class CompactingScript:
    """Turn replies in order; each summarisation request (known by its instructions) gets ``SUMMARY <n>``."""

    def __init__(self, *replies: ReplyLike) -> None:
        self.replies: deque[ReplyLike] = deque(replies)
        self.summaries = 0

    def add(self, *replies: ReplyLike) -> None:
        self.replies.extend(replies)

    def __call__(self, body: dict[str, Any]) -> ReplyLike:
        if body["messages"][0]["content"] == SUMMARY_INSTRUCTIONS:
            self.summaries += 1
            return text(f"SUMMARY {self.summaries}")
        return self.replies.popleft()


@pytest.fixture
def script() -> CompactingScript:
    return CompactingScript()


@pytest.fixture
def server(script: CompactingScript) -> Iterator[ScriptedServer]:
    started = ScriptedServer(fallback=script).start()
    yield started
    started.stop()


def turn_requests(server: ScriptedServer) -> list[list[dict[str, Any]]]:
    return [r.body["messages"] for r in server.requests if r.body["messages"][0]["content"] != SUMMARY_INSTRUCTIONS]


async def compacted_twice(workspace: Path, server: ScriptedServer, script: CompactingScript) -> list[Message]:
    """A session that writes a file, compacts, edits it, compacts again and answers once more; returns every
    message it made, in order."""
    script.add(
        reply(tool_call("write", id="w1", path="notes.txt", content="one\n")),
        text(f"Written. {FILLER}"),
        reply(tool_call("edit", id="e1", path="notes.txt", old_string="one", new_string="two")),
        text(f"Edited. {FILLER}"),
        text(f"Third answer. {FILLER}"),
    )
    orch, log, _ = make_orchestrator(workspace, server.base_url)
    for request in ("create notes.txt", "/compact", "change one to two", "/compact", "a third question"):
        outcome = await orch.run_input(request)
        assert outcome.ok, outcome
    assert script.summaries == 2
    return [e.message for e in log.of(MessageAdded)]


async def test_the_database_keeps_every_message_of_both_epochs_and_the_diffs(
    tmp_path: Path, server: ScriptedServer, script: CompactingScript
) -> None:
    made = await compacted_twice(tmp_path, server, script)
    store = Store.open(tmp_path, environ={})
    try:
        session_id = store.sessions.latest_id()
        assert session_id is not None
        history = store.conversation.history(session_id)
    finally:
        store.close()
    kept = [e for e in history if isinstance(e, HistoryMessage)]
    assert [e.message for e in kept] == made
    assert [e.epoch for e in kept if e.message.content == "create notes.txt"] == [0]
    assert [e.epoch for e in kept if e.message.content == "a third question"] == [2]
    markers = [e for e in history if isinstance(e, CompactionMarker)]
    assert [(m.epoch, m.summary.content.count("SUMMARY")) for m in markers] == [(1, 1), (2, 1)]
    # Recorded with each marker (a forced /compact of so short a history may not shrink it: the summary keeps the
    # original request verbatim).
    assert all(m.tokens_before > 1000 and m.tokens_after > 1000 for m in markers)
    diffs = {e.message.tool_call_id: e.diff for e in kept if e.message.role == "tool"}
    assert "+one" in (diffs["w1"] or "") and "-one" in (diffs["e1"] or "") and "+two" in (diffs["e1"] or "")
    tool_contents = [e.message.content or "" for e in kept if e.message.role == "tool"]
    assert all("+two" not in content and "@@" not in content for content in tool_contents)


async def test_continue_sends_only_the_latest_epochs_view(
    tmp_path: Path, server: ScriptedServer, script: CompactingScript
) -> None:
    await compacted_twice(tmp_path, server, script)
    first = CREATED[-1]
    view_before_restart = [m.to_wire() for m in first.session.messages]
    assert (first.session.messages[0].content or "").startswith(SUMMARY_HEADER)
    assert "SUMMARY 2" in (first.session.messages[0].content or "")

    script.add(text("went on"))
    await first.aclose()  # the restart: one process owns a session at a time (SPEC 21)
    resumed, _, _ = make_orchestrator(tmp_path, server.base_url)
    assert (await resumed.run_input("/resume --last")).ok
    assert (await resumed.run_input("go on")).ok
    sent = [m for m in turn_requests(server)[-1] if m["role"] != "system"]
    assert sent == [*view_before_restart, {"role": "user", "content": "go on"}]
    assert not any(m.get("content") in ("create notes.txt", "change one to two") for m in sent)


async def test_a_subagent_conversation_survives_a_restart(
    tmp_path: Path, server: ScriptedServer, script: CompactingScript
) -> None:
    (tmp_path / "notes.txt").write_text("the plan is in PLAN.md\n")
    script.add(
        reply(tool_call("task", id="t1", description="find the plan", prompt="Where is the plan written?")),
        reply(tool_call("read", id="r1", path="notes.txt")),
        text("The plan is in PLAN.md."),
        text("The sub-agent found it: PLAN.md."),
    )
    orch, log, _ = make_orchestrator(tmp_path, server.base_url)
    assert (await orch.run_input("where is the plan?")).ok
    live = [e.event.message for e in log.of(SubagentEvent) if isinstance(e.event, MessageAdded)]
    session_id = orch.session_id
    await orch.aclose()
    CREATED.remove(orch)

    store = Store.open(tmp_path, environ={})
    try:
        conversations = store.conversation.subagent_conversations(session_id)
    finally:
        store.close()
    assert list(conversations) == ["t1"]
    stored = [e.message for e in conversations["t1"]]
    assert stored == live
    assert [m.role for m in stored] == ["user", "assistant", "tool", "assistant"]
    assert stored[0].content == "Where is the plan written?"
    assert "the plan is in PLAN.md" in (stored[2].content or "")
