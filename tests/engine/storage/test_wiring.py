"""Issue 5 end to end through the orchestrator: messages in the database as they are made, Task and interaction
events, audit and permission logs, /resume with crash repair and a re-asked approval, /undo, /diff.

These need the Store wired into the orchestrator (see the storage report's integration section); the lead removes
the skip marks when wiring. They read the database through a second Store, as another process would."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from engine.command_results import CommandReply, ShellCommandRan
from engine.events import MessageAdded
from engine.messages import FunctionCall, Message, ToolCall
from engine.modes import Mode
from engine.storage.log.records import InteractionRequested, TaskEvent
from engine.storage.sessions.recovery import INTERRUPTED_ERROR
from engine.storage.sessions.snapshot import TRANSCRIPT_ONLY
from engine.storage.store import Store
from tests.support.fakes import close_orchestrators  # noqa: F401 (autouse fixture)
from tests.support.fakes import CREATED, make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer






@pytest.fixture
def reader(tmp_path: Path) -> Iterator[Store]:
    store = Store.open(tmp_path, environ={})
    yield store
    store.close()


def slash_results(log: object) -> list[CommandReply]:
    replies = log.of(CommandReply)  # type: ignore[attr-defined]
    return [e for e in replies if not isinstance(e, ShellCommandRan)]


async def test_every_message_is_in_the_database_when_it_is_announced(
    tmp_path: Path, scripted_server: ScriptedServer, reader: Store
) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    scripted_server.add(reply(tool_call("read", path="a.txt")), text("It says alpha."))
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    stored_counts: list[int] = []
    orch.subscribe(
        lambda e: stored_counts.append(len(reader.conversation.load(orch.session_id).messages))
        if isinstance(e, MessageAdded) else None
    )
    await orch.run_input("what is in a.txt")
    assert stored_counts == [1, 2, 3, 4]
    snapshot = json.loads(orch.session.path.read_text())
    # The snapshot leaves out what only the transcript uses (a tool message's state and duration).
    stored = [
        {k: v for k, v in m.to_record().items() if k not in TRANSCRIPT_ONLY}
        for m in reader.conversation.load(orch.session_id).messages
    ]
    assert stored == [m for m in snapshot["messages"] if m["role"] != "system"]


async def test_each_turn_is_a_task_and_approvals_are_interactions(
    tmp_path: Path, scripted_server: ScriptedServer, reader: Store
) -> None:
    scripted_server.add(reply(tool_call("write", path="new.txt", content="x")), text("written"))
    orch, _, interaction = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.DEFAULT)
    await orch.run_input("create new.txt")
    events = [r.event for r in reader.events.load(orch.session_id)]
    assert [e.type for e in events if isinstance(e, TaskEvent)] == ["TaskCreated", "TaskStarted", "TaskCompleted"]
    requested = [e for e in events if isinstance(e, InteractionRequested)]
    assert len(requested) == 1 and len(interaction.approval_requests) == 1
    assert (requested[0].kind, requested[0].purpose) == ("Confirm", "confirm_risky_action")
    assert requested[0].data["call_id"] == interaction.approval_requests[0].call_id
    assert reader.events.pending_interaction(orch.session_id) is None
    decisions = [(p.decided_by, p.decision) for p in reader.audit.permissions(orch.session_id)]
    assert decisions == [("policy", "ask"), ("user", "yes")]


async def test_every_tool_call_is_audited_bang_commands_included(
    tmp_path: Path, scripted_server: ScriptedServer, reader: Store
) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    scripted_server.add(reply(tool_call("read", path="a.txt")), text("ok"))
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("read a.txt")
    await orch.run_input("!echo hi")
    entries = reader.audit.entries(orch.session_id)
    assert [(e.tool, e.actor, e.is_error) for e in entries] == [("read", "model", False), ("bash", "user", False)]
    assert entries[0].input == {"path": "a.txt"} and entries[0].output is not None
    assert entries[1].input["command"] == "echo hi" and entries[1].duration_ms is not None


async def test_resume_restores_a_session_and_an_unknown_id_is_readable(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(text("first answer"))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("first request")
    first_id = orch.session_id
    await orch.run_input("/new")
    assert orch.session_id != first_id
    await orch.run_input(f"/resume {first_id}")
    assert orch.session_id == first_id
    assert [m.content for m in orch.session.messages] == ["first request", "first answer"]
    outcome = await orch.run_input("/resume nope")
    assert outcome.reason == "error"
    assert "no session 'nope'" in slash_results(log)[-1].text


def crashed_session(workspace: Path, *, pending_call: str | None) -> str:
    """A session as a killed process leaves it: an assistant message with three calls, only the first answered."""
    store = Store.open(workspace, environ={})
    session_id = store.sessions.create(model="scripted-model", mode="default")
    calls = [
        ToolCall(
            id=f"c{n}",
            function=FunctionCall(name="write", arguments=json.dumps({"path": f"f{n}.txt", "content": "x"})),
        )
        for n in (1, 2, 3)
    ]
    store.events.record(session_id, TaskEvent("TaskCreated", "t1", "write three files"))
    store.events.record(session_id, TaskEvent("TaskStarted", "t1"))
    store.conversation.append(session_id, Message.user("write three files"))
    store.conversation.append(session_id, Message.assistant(None, calls))
    store.conversation.append(session_id, Message.tool("c1", "write", '{"ok": true}'))
    if pending_call is not None:
        store.events.record(
            session_id,
            InteractionRequested(
                "i1", "t1", "Confirm", "confirm_risky_action", "write f2.txt", ("yes", "no", "always"),
                {"call_id": pending_call, "tool": "write"},
            ),
        )
    store.close()
    return session_id


async def test_resume_after_a_crash_repairs_the_history_and_never_reruns_a_completed_call(
    tmp_path: Path, scripted_server: ScriptedServer, reader: Store
) -> None:
    session_id = crashed_session(tmp_path, pending_call=None)
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input(f"/resume {session_id}")
    roles = [(m.role, m.tool_call_id) for m in orch.session.messages]
    assert roles == [("user", None), ("assistant", None), ("tool", "c1"), ("tool", "c2"), ("tool", "c3")]
    assert json.loads(orch.session.messages[3].content or "")["error"] == INTERRUPTED_ERROR
    assert not (tmp_path / "f1.txt").exists()  # c1 completed before the crash: it is not run again
    stored = reader.conversation.load(session_id).messages
    assert [m.tool_call_id for m in stored] == [None, None, "c1", "c2", "c3"]


async def test_resume_asks_the_pending_approval_again_and_the_turn_continues(
    tmp_path: Path, scripted_server: ScriptedServer, reader: Store
) -> None:
    session_id = crashed_session(tmp_path, pending_call="c2")
    scripted_server.add(text("all three written"))
    orch, _, interaction = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.DEFAULT)
    await orch.run_input(f"/resume {session_id}")
    assert [r.call_id for r in interaction.approval_requests] == ["c2", "c3"]
    assert (tmp_path / "f2.txt").exists() and (tmp_path / "f3.txt").exists()
    assert not (tmp_path / "f1.txt").exists()
    assert orch.session.messages[-1].content == "all three written"
    assert reader.events.pending_interaction(session_id) is None


async def test_undo_command_restores_the_last_turns_files(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    (tmp_path / "a.txt").write_bytes(b"original\r\n")
    scripted_server.add(
        reply(tool_call("read", path="a.txt")),
        reply(tool_call("write", path="a.txt", content="changed\n"), tool_call("write", path="sub/b.txt", content="b")),
        text("done"),
    )
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.AUTO_EDIT)
    await orch.run_input("change a, create b")
    await orch.run_input("/undo")
    assert (tmp_path / "a.txt").read_bytes() == b"original\r\n"
    assert not (tmp_path / "sub").exists()
    await orch.run_input("/undo")
    assert slash_results(log)[-1].text.startswith("nothing to undo")


async def test_diff_command_outside_git_shows_this_sessions_changes(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(tool_call("write", path="new.txt", content="one\ntwo\n")), text("done"))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.AUTO_EDIT)
    await orch.run_input("create new.txt")
    await orch.run_input("/diff")
    result = slash_results(log)[-1]
    assert "new.txt" in result.text and "+2" in result.text
