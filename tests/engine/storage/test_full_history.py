"""Issue 18: the database keeps every message across compactions (context epochs), each tool message's diff beside
it, and the sub-agents' conversations; ``Conversation.load`` gives the latest epoch's view, ``Conversation.history`` all of it."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

from engine.messages import FunctionCall, Message, ToolCall
from engine.storage.db import Database, database_path
from engine.storage.migrations import MIGRATIONS
from engine.storage.redact import Redactor
from engine.storage.sessions.records import CompactionMarker, HistoryMessage
from engine.storage.store import Store

V2_DATABASE = Path(__file__).parent / "data" / "v2.db"


def call(call_id: str, name: str = "write", **arguments: str) -> ToolCall:
    return ToolCall(id=call_id, function=FunctionCall(name=name, arguments=json.dumps(arguments)))


def contents(messages: list[Message]) -> list[str | None]:
    return [m.content for m in messages]


def test_a_compaction_keeps_every_message_and_the_view_starts_at_the_summary(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    seqs = [store.conversation.append(session_id, Message.user(text)) for text in ("a", "b", "c", "d")]
    epoch, summary_seq = store.conversation.start_epoch(
        session_id, Message.user("summary of a, b"), kept_from_seq=seqs[2], tokens_before=100, tokens_after=40
    )
    assert (epoch, summary_seq) == (1, 4)
    store.conversation.append(session_id, Message.user("e"))
    loaded = store.conversation.load(session_id)
    assert contents(loaded.messages) == ["summary of a, b", "c", "d", "e"]
    assert loaded.seqs == (4, 2, 3, 5) and loaded.epoch == 1
    assert [json.loads(text)["content"] for text in loaded.encoded] == contents(loaded.messages)
    assert loaded.info.message_count == 5  # the summary is not one of the session's messages


def test_full_history_holds_every_epoch_in_order_with_a_marker_per_compaction(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    for text in ("a", "b", "c"):
        store.conversation.append(session_id, Message.user(text))
    store.conversation.start_epoch(session_id, Message.user("S1"), kept_from_seq=2, tokens_before=90, tokens_after=30)
    for text in ("d", "e"):
        store.conversation.append(session_id, Message.user(text))
    # The second compaction summarises S1 and c (the view's older part); d and e stay.
    store.conversation.start_epoch(session_id, Message.user("S2"), kept_from_seq=4, tokens_before=80, tokens_after=35)
    store.conversation.append(session_id, Message.user("f"))

    history = store.conversation.history(session_id)
    shown = [
        f"marker{e.epoch}:{e.summary.content}" if isinstance(e, CompactionMarker) else f"{e.epoch}:{e.message.content}"
        for e in history
    ]
    assert shown == ["0:a", "0:b", "0:c", "marker1:S1", "1:d", "1:e", "marker2:S2", "2:f"]
    first, second = [e for e in history if isinstance(e, CompactionMarker)]
    assert (first.tokens_before, first.tokens_after, first.kept_from_seq) == (90, 30, 2)
    assert (second.tokens_before, second.tokens_after, second.kept_from_seq) == (80, 35, 4)
    assert contents(store.conversation.load(session_id).messages) == ["S2", "d", "e", "f"]


def test_a_compaction_keeping_nothing_leaves_only_what_follows_the_summary(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    store.conversation.append(session_id, Message.user("a"))
    store.conversation.start_epoch(session_id, Message.user("S"), kept_from_seq=None, tokens_before=9, tokens_after=3)
    store.conversation.append(session_id, Message.user("b"))
    assert contents(store.conversation.load(session_id).messages) == ["S", "b"]


def test_a_tool_message_keeps_its_diff_beside_the_content_the_model_sees(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-old\n+new\n"
    store.conversation.append(session_id, Message.assistant(None, [call("c1", path="x.py")]))
    store.conversation.append(session_id, Message.tool("c1", "edit", '{"ok": true}'), diff=diff)
    loaded = store.conversation.load(session_id)
    assert loaded.messages[1].content == '{"ok": true}'
    assert "+new" not in loaded.encoded[1]
    stored = [e for e in store.conversation.history(session_id) if isinstance(e, HistoryMessage)]
    assert [e.diff for e in stored] == [None, diff]


def test_a_diff_is_redacted_like_the_messages(workspace: Path) -> None:
    store = Store(Database.open(database_path(workspace)), redactor=Redactor({"OPENAI_API_KEY": "sk-secret-123456"}))
    try:
        session_id = store.sessions.create(model="m", mode="default")
        store.conversation.append(session_id, Message.tool("c1", "write", "{}"), diff="+key = sk-secret-123456\n")
        (entry,) = store.conversation.history(session_id)
        assert isinstance(entry, HistoryMessage) and "sk-secret-123456" not in (entry.diff or "")
    finally:
        store.close()


def test_subagent_conversations_are_stored_by_their_task_call(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    store.conversation.append_subagent(session_id, "task_1", Message.user("find the parser"), task_id="t1")
    store.conversation.append_subagent(session_id, "task_2", Message.user("count the tests"), task_id="t1")
    store.conversation.append_subagent(session_id, "task_1", Message.assistant("it is in parse.py"), task_id="t1")
    conversations = store.conversation.subagent_conversations(session_id)
    assert {key: [e.message.content for e in value] for key, value in conversations.items()} == {
        "task_1": ["find the parser", "it is in parse.py"],
        "task_2": ["count the tests"],
    }
    # They are not part of the session's own conversation.
    assert store.conversation.load(session_id).messages == []


def test_a_version_2_database_is_migrated_and_keeps_its_conversation(tmp_path: Path) -> None:
    """``data/v2.db`` was written by coder-tui before schema 3, including a compaction that replaced the rows."""
    workspace = tmp_path / "ws"
    database_path(workspace).parent.mkdir(parents=True)
    shutil.copy(V2_DATABASE, database_path(workspace))
    with closing(sqlite3.connect(database_path(workspace))) as conn:
        assert conn.execute("SELECT MAX(version) FROM schema_version").fetchone()[0] == 2
    store = Store.open(workspace, environ={})
    try:
        assert store.db.version == MIGRATIONS[-1].version == 6
        # Made before sessions were marked by origin: the full screen's.
        assert [(s.id, s.origin) for s in store.sessions.summaries()] == [("v2session000", "tui")]
        loaded = store.conversation.load("v2session000")
        assert contents(loaded.messages) == [
            "[Context summary] The earlier part of this conversation was compacted.",
            "done",
            "second request",
            "second answer",
        ]
        assert loaded.seqs == (0, 1, 2, 3) and loaded.epoch == 0
        history = store.conversation.history("v2session000")
        assert all(isinstance(e, HistoryMessage) and e.epoch == 0 and e.diff is None for e in history)
        assert [e.call_id for e in store.audit.entries("v2session000")] == ["call_v2"]
        # The migrated session goes on: a compaction now keeps what it replaces.
        store.conversation.start_epoch(
            "v2session000", Message.user("S"), kept_from_seq=3, tokens_before=9, tokens_after=4
        )
        store.conversation.append("v2session000", Message.user("third request"))
        assert contents(store.conversation.load("v2session000").messages) == ["S", "second answer", "third request"]
        assert len(store.conversation.history("v2session000")) == 6
    finally:
        store.close()


def test_a_rewind_cuts_the_view_and_keeps_the_cut_messages_in_the_history(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    for text in ("a", "b", "c"):
        store.conversation.append(session_id, Message.user(text))
    store.conversation.start_epoch(session_id, Message.user("S"), kept_from_seq=1, tokens_before=9, tokens_after=4)
    store.conversation.append(session_id, Message.user("d"))
    assert store.conversation.rewind(session_id, 2) == 2  # c and d leave the view; the summary stays
    assert contents(store.conversation.load(session_id).messages) == ["S", "b"]
    store.conversation.append(session_id, Message.user("e"))
    assert contents(store.conversation.load(session_id).messages) == ["S", "b", "e"]
    history = [e for e in store.conversation.history(session_id) if isinstance(e, HistoryMessage)]
    assert [(e.message.content, e.rewound) for e in history] == [
        ("a", False), ("b", False), ("c", True), ("d", True), ("e", False)
    ]
    assert store.conversation.load(session_id).info.message_count == 3


def test_append_messages_copies_a_conversation_in_one_go(store: Store) -> None:
    session_id = store.sessions.create(model="m", mode="default")
    assert store.conversation.append_many(session_id, [Message.user("a"), Message.assistant("b")]) == [0, 1]
    assert contents(store.conversation.load(session_id).messages) == ["a", "b"]
