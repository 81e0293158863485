"""SPEC 12: the Store the orchestrator persists through: sessions, the conversation, the event log, the audit
and permission logs, todos, and what resume needs (latest session, pending interaction, unfinished task)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.events import TodoItem
from engine.messages import FunctionCall, Message, ToolCall
from engine.storage.errors import UnknownSession
from engine.storage.log.records import (
    InteractionRequested,
    InteractionResponded,
    PermissionDecided,
    TaskEvent,
    ToolCallCompleted,
    ToolCallRequested,
)
from engine.storage.store import Store


def call(call_id: str, name: str = "write", arguments: str = '{"path": "a.txt"}') -> ToolCall:
    return ToolCall(id=call_id, function=FunctionCall(name=name, arguments=arguments))


def approval(interaction_id: str, task_id: str, call_id: str) -> InteractionRequested:
    return InteractionRequested(
        interaction_id=interaction_id,
        task_id=task_id,
        kind="Confirm",
        purpose="confirm_risky_action",
        display="write a.txt",
        options=("yes", "no", "always"),
        data={"call_id": call_id, "tool": "write"},
    )


def test_every_message_is_stored_in_order_with_its_full_record(store: Store) -> None:
    session_id = store.sessions.create(model="gpt-x", mode="default")
    conversation = [
        Message.user("fix the bug"),
        Message.assistant("Looking.", [call("call_1")], reasoning="think first"),
        Message.tool("call_1", "write", '{"ok": true}'),
        Message(role="assistant", content="partial", interrupted=True),
    ]
    positions = [store.conversation.append(session_id, message) for message in conversation]
    assert positions == [0, 1, 2, 3]
    loaded = store.conversation.load(session_id)
    assert loaded.messages == conversation
    assert [m.to_record() for m in loaded.messages] == [m.to_record() for m in conversation]
    assert loaded.info.message_count == 4
    assert (loaded.info.model, loaded.info.mode) == ("gpt-x", "default")


def test_session_title_is_the_first_request_trimmed(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    store.events.record(session_id, TaskEvent("TaskCreated", "t1", detail="  refactor   the\nparser  " + "x" * 200))
    store.events.record(session_id, TaskEvent("TaskCreated", "t2", detail="second request"))
    title = store.conversation.load(session_id).info.title
    assert title.startswith("refactor the parser xxx")
    assert len(title) == 80 and title.endswith("…")


def test_session_title_falls_back_to_the_first_user_message(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    store.conversation.append(session_id, Message.assistant("hello"))
    store.conversation.append(session_id, Message.user("add tests\nfor the lexer"))
    store.conversation.append(session_id, Message.user("later request"))
    assert store.conversation.load(session_id).info.title == "add tests for the lexer"


def test_list_sessions_newest_activity_first_with_counts(store: Store) -> None:
    first = store.sessions.create(model="m", mode="default", title="first")
    second = store.sessions.create(model="m", mode="plan", title="second")
    store.conversation.append(second, Message.user("the second"))
    store.conversation.append(first, Message.user("more work on the first"))
    store.conversation.append(first, Message.assistant("ok"))
    store.events.record(first, TaskEvent("TaskCreated", "t1", detail="more work on the first"))
    summaries = store.sessions.summaries()
    assert [(s.id, s.title, s.message_count) for s in summaries] == [(first, "first", 2), (second, "second", 1)]
    assert summaries[0].updated_at > summaries[1].updated_at
    assert [s.id for s in store.sessions.summaries(limit=1)] == [first]
    assert store.sessions.latest_id() == first


def test_sessions_without_messages_are_not_offered_for_resume(store: Store) -> None:
    used = store.sessions.create(model="m", mode="default")
    store.conversation.append(used, Message.user("real work"))
    store.events.record(used, TaskEvent("TaskCreated", "t1", detail="real work"))
    store.sessions.create(model="m", mode="default")  # started and quit without typing
    assert [s.id for s in store.sessions.summaries()] == [used]
    assert store.sessions.latest_id() == used


def test_continue_skips_a_later_session_that_only_ran_commands(store: Store) -> None:
    """`-p "create z.py"` then `-p '!git status'`: `--continue -p /undo` must find the first session."""
    worked = store.sessions.create(model="m", mode="default")
    store.conversation.append(worked, Message.user("create z.py"))
    store.events.record(worked, TaskEvent("TaskCreated", "t1", detail="create z.py"))
    commands_only = store.sessions.create(model="m", mode="default")
    store.conversation.append(commands_only, Message.user("The user ran a shell command...\n$ git status"))
    assert store.sessions.latest_id() == worked
    assert [s.id for s in store.sessions.summaries()] == [commands_only, worked]  # still there to resume by id


def test_latest_session_id_is_none_in_a_new_workspace(store: Store) -> None:
    assert store.sessions.latest_id() is None
    assert store.sessions.summaries() == []


def test_update_session_changes_model_and_mode(store: Store) -> None:
    session_id = store.sessions.create(model="m1", mode="default")
    store.sessions.update(session_id, model="m2")
    store.sessions.update(session_id, mode="yolo")
    info = store.conversation.load(session_id).info
    assert (info.model, info.mode) == ("m2", "yolo")


def test_load_session_accepts_a_unique_id_prefix(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default", session_id="abc123def456")
    store.sessions.create(model="m", mode="default", session_id="abd999999999")
    assert store.conversation.load("abc1").info.id == session_id
    with pytest.raises(UnknownSession, match="ambiguous") as info:
        store.conversation.load("ab")
    assert "abc123def456" in str(info.value) and "abd999999999" in str(info.value)


def test_unknown_session_id_says_how_to_see_the_ids(store: Store) -> None:
    known = store.sessions.create(model="m", mode="default")
    with pytest.raises(UnknownSession) as info:
        store.conversation.load("nope")
    message = str(info.value)
    assert "no session 'nope'" in message
    assert known in message
    assert "/resume with no id" in message and "--continue" in message


def test_appending_to_an_unknown_session_is_refused(store: Store) -> None:
    with pytest.raises(UnknownSession, match="no session 'ghost'"):
        store.conversation.append("ghost", Message.user("hi"))


def test_insert_messages_puts_them_in_place_and_moves_the_rest_down(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    for text in ("a", "b", "c"):
        store.conversation.append(session_id, Message.user(text))
    positions = store.conversation.insert(session_id, [(0, Message.assistant("x")), (0, Message.assistant("y")),
                                                   (1, Message.assistant("z"))])
    assert positions == [1, 2, 4]
    assert [m.content for m in store.conversation.load(session_id).messages] == ["a", "x", "y", "b", "z", "c"]
    assert store.conversation.append(session_id, Message.user("d")) == 6


def test_task_lifecycle_events_are_logged_in_order(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    for event in (
        TaskEvent("TaskCreated", "t1", "do it"),
        TaskEvent("TaskStarted", "t1"),
        TaskEvent("TaskFailed", "t1", "provider error"),
    ):
        store.events.record(session_id, event)
    logged = store.events.load(session_id)
    assert [r.event for r in logged] == [
        TaskEvent("TaskCreated", "t1", "do it"),
        TaskEvent("TaskStarted", "t1"),
        TaskEvent("TaskFailed", "t1", "provider error"),
    ]
    assert logged[0].created_at < logged[1].created_at < logged[2].created_at


def test_interactions_are_logged_with_kind_purpose_display_options_and_answer(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    request = approval("i1", "t1", "call_1")
    answer = InteractionResponded("i1", "t1", "always")
    store.events.record(session_id, TaskEvent("TaskCreated", "t1", "x"))
    store.events.record(session_id, request)
    store.events.record(session_id, answer)
    assert [r.event for r in store.events.load(session_id)][1:] == [request, answer]


def test_an_unanswered_interaction_of_a_running_task_is_pending(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    store.events.record(session_id, TaskEvent("TaskCreated", "t1", "write it"))
    store.events.record(session_id, TaskEvent("TaskStarted", "t1"))
    store.events.record(session_id, approval("i1", "t1", "call_1"))
    store.events.record(session_id, InteractionResponded("i1", "t1", "yes"))
    store.events.record(session_id, approval("i2", "t1", "call_2"))
    pending = store.events.pending_interaction(session_id)
    assert pending is not None
    assert pending.request == approval("i2", "t1", "call_2")
    assert store.conversation.load(session_id).unfinished_task_id == "t1"


@pytest.mark.parametrize(
    "after",
    [
        [InteractionResponded("i1", "t1", None, cancelled=True)],
        [TaskEvent("TaskCanceled", "t1")],
        [TaskEvent("TaskCreated", "t2", "a newer request")],
    ],
    ids=["answered", "task-ended", "newer-task"],
)
def test_an_answered_or_stale_interaction_is_not_pending(store: Store, after: list[object]) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    store.events.record(session_id, TaskEvent("TaskCreated", "t1", "x"))
    store.events.record(session_id, approval("i1", "t1", "call_1"))
    for event in after:
        store.events.record(session_id, event)  # type: ignore[arg-type]
    assert store.events.pending_interaction(session_id) is None


def test_a_finished_task_is_not_unfinished(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    assert store.conversation.load(session_id).unfinished_task_id is None
    store.events.record(session_id, TaskEvent("TaskCreated", "t1", "x"))
    store.events.record(session_id, TaskEvent("TaskCompleted", "t1"))
    assert store.conversation.load(session_id).unfinished_task_id is None


def test_audit_log_records_request_and_completion_of_every_call(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    store.audit.record(ToolCallRequested(session_id, "t1", "call_1", "read", {"path": "a.txt"}))
    store.audit.record(ToolCallRequested(session_id, None, "bang_1", "bash", {"command": "ls"}, actor="user"))
    store.audit.record(
        ToolCallCompleted(session_id, "t1", "call_1", "read", {"ok": True, "content": "x"}, False, duration_ms=3.5)
    )
    first, second = store.audit.entries(session_id)
    assert (first.call_id, first.tool, first.actor, first.task_id, first.input) == (
        "call_1", "read", "model", "t1", {"path": "a.txt"}
    )
    assert (first.output, first.is_error, first.duration_ms) == ({"ok": True, "content": "x"}, False, 3.5)
    assert first.completed_at is not None and first.completed_at > first.requested_at
    assert (second.actor, second.output, second.completed_at) == ("user", None, None)


def test_a_reused_call_id_completes_the_latest_open_call(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    for turn in (1, 2):
        store.audit.record(ToolCallRequested(session_id, None, "call_0", "read", {"turn": turn}))
        store.audit.record(ToolCallCompleted(session_id, None, "call_0", "read", {"turn": turn}, turn == 2, 1))
    entries = store.audit.entries(session_id)
    assert [(e.input, e.output, e.is_error) for e in entries] == [
        ({"turn": 1}, {"turn": 1}, False),
        ({"turn": 2}, {"turn": 2}, True),
    ]


def test_permission_decisions_are_logged(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    store.audit.record(
        PermissionDecided(
            session_id, "t1", "c1", "bash", {"command": "rm -rf build"}, "ask", ("dangerous command: rm -rf",),
            "policy", rule="bash: ask",
        )
    )
    store.audit.record(
        PermissionDecided(session_id, "t1", "c1", "bash", {"command": "rm -rf build"}, "yes", (), "user")
    )
    policy, user = store.audit.permissions(session_id)
    assert (policy.decision, policy.reasons, policy.decided_by, policy.rule) == (
        "ask", ("dangerous command: rm -rf",), "policy", "bash: ask"
    )
    assert (user.decision, user.decided_by, user.call_id, user.arguments) == (
        "yes", "user", "c1", {"command": "rm -rf build"}
    )


def test_todos_are_saved_whole_and_loaded_in_order(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    store.todos.save(session_id, [TodoItem("1", "write tests", "completed"), TodoItem("2", "fix", "in_progress")])
    store.todos.save(session_id, [TodoItem("2", "fix", "completed"), TodoItem("3", "ship", "pending")])
    assert store.todos.load(session_id) == [TodoItem("2", "fix", "completed"), TodoItem("3", "ship", "pending")]
    assert store.todos.load(store.sessions.create(model="m", mode="default")) == []


def test_data_survives_closing_and_reopening(workspace: Path) -> None:
    first = Store.open(workspace, environ={})
    session_id = first.sessions.create(model="m", mode="default")
    first.conversation.append(session_id, Message.user("kept"))
    first.events.record(session_id, TaskEvent("TaskCreated", "t1", detail="kept"))
    first.close()
    again = Store.open(workspace, environ={})
    try:
        assert again.sessions.latest_id() == session_id
        assert [m.content for m in again.conversation.load(session_id).messages] == ["kept"]
    finally:
        again.close()
