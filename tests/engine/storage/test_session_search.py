"""SPEC 27: the sessions' full-text index (``.coder/search.db``) is kept current by every write to the conversation
(appends, a fork's copy, compactions, rewinds, resume's repairs, renames) and is built again when it is missing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.messages import FunctionCall, Message, ToolCall
from engine.storage.db import database_path
from engine.storage.search_index import search_index_path
from engine.storage.session_search import (
    MARK_END,
    MARK_START,
    fts_query,
    known_folders,
    search_folders,
    search_sessions,
)
from engine.storage.store import Store

@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"XDG_CONFIG_HOME": str(tmp_path / "config")}


@pytest.fixture
def opened(workspace: Path, env: dict[str, str]) -> Iterator[Store]:
    store = Store.open(workspace, environ=env)
    yield store
    store.close()


def found(workspace: Path, words: str) -> list[str]:
    return [hit.session_id for hit in search_sessions(workspace, words)]


def test_a_written_message_is_found_at_once(opened: Store, workspace: Path) -> None:
    session_id = opened.sessions.create(model="m", mode="default")
    opened.conversation.append(session_id, Message.user("the tokenizer drops unicode quotes"))
    opened.conversation.append(session_id, Message.assistant("I will read lexer.py"))
    assert found(workspace, "tokeniz") == [session_id]
    assert found(workspace, "lexer") == [session_id]
    assert found(workspace, "parser") == []


def test_matches_are_marked_in_the_snippet(opened: Store, workspace: Path) -> None:
    session_id = opened.sessions.create(model="m", mode="default")
    opened.conversation.append(session_id, Message.user("first request"))
    opened.conversation.append(session_id, Message.assistant("the Flaky test in ci waits on a socket"))
    (hit,) = search_sessions(workspace, "flaky socket")
    assert hit.session_id == session_id and hit.title == "first request"
    assert f"{MARK_START}Flaky{MARK_END}" in hit.snippet and f"{MARK_START}socket{MARK_END}" in hit.snippet
    assert hit.message_count == 2


def test_tool_call_arguments_are_searchable(opened: Store, workspace: Path) -> None:
    session_id = opened.sessions.create(model="m", mode="default")
    call = ToolCall(id="c1", function=FunctionCall(name="bash", arguments=json.dumps({"command": "make deploy"})))
    opened.conversation.append(session_id, Message.assistant("", tool_calls=[call]))
    assert found(workspace, "deploy") == [session_id]


def test_newest_session_first(opened: Store, workspace: Path) -> None:
    older = opened.sessions.create(model="m", mode="default")
    opened.conversation.append(older, Message.user("migrate the schema"))
    newer = opened.sessions.create(model="m", mode="default")
    opened.conversation.append(newer, Message.user("schema again"))
    assert found(workspace, "schema") == [newer, older]
    opened.conversation.append(older, Message.user("one more word"))  # now the latest one used
    assert found(workspace, "schema") == [older, newer]


def test_a_rewind_takes_the_cut_messages_out_of_the_index(opened: Store, workspace: Path) -> None:
    session_id = opened.sessions.create(model="m", mode="default")
    opened.conversation.append(session_id, Message.user("keep this alpha"))
    cut = opened.conversation.append(session_id, Message.user("drop this omega"))
    opened.conversation.rewind(session_id, cut)
    assert found(workspace, "omega") == []
    assert found(workspace, "alpha") == [session_id]


def test_a_compaction_summary_is_indexed_and_the_earlier_messages_stay(opened: Store, workspace: Path) -> None:
    session_id = opened.sessions.create(model="m", mode="default")
    first = opened.conversation.append(session_id, Message.user("original goal: port the parser"))
    opened.conversation.start_epoch(
        session_id, Message.user("summary: the parser port is half done"), kept_from_seq=None,
        tokens_before=100, tokens_after=10,
    )
    assert first == 0
    assert found(workspace, "half done") == [session_id]
    assert found(workspace, "original goal") == [session_id]


def test_inserted_repairs_move_the_later_messages_and_a_rewind_still_cuts_the_right_ones(
    opened: Store, workspace: Path
) -> None:
    session_id = opened.sessions.create(model="m", mode="default")
    opened.conversation.append(session_id, Message.user("zero"))
    opened.conversation.append(session_id, Message.user("one"))
    opened.conversation.append(session_id, Message.user("two"))
    opened.conversation.insert(session_id, [(0, Message.user("inserted"))])
    opened.conversation.rewind(session_id, 2)  # "one" moved to 2
    assert found(workspace, "one") == [] and found(workspace, "two") == []
    assert found(workspace, "zero") == [session_id] and found(workspace, "inserted") == [session_id]


def test_a_fork_copy_is_indexed(opened: Store, workspace: Path) -> None:
    session_id = opened.sessions.create(model="m", mode="default", title="copied")
    opened.conversation.append_many(session_id, [Message.user("forked words"), Message.assistant("reply")])
    assert found(workspace, "forked") == [session_id]


def test_rename_changes_the_title_that_is_searched(opened: Store, workspace: Path) -> None:
    session_id = opened.sessions.create(model="m", mode="default")
    opened.conversation.append(session_id, Message.user("fix the bug"))
    opened.sessions.rename(session_id, "Release checklist")
    (hit,) = search_sessions(workspace, "checklist")
    assert hit.title == "Release checklist" and hit.snippet == ""
    assert opened.conversation.load(session_id).info.title == "Release checklist"
    assert found(workspace, "fix") == [session_id]


def test_a_missing_index_is_built_again_from_the_database(workspace: Path, env: dict[str, str]) -> None:
    store = Store.open(workspace, environ=env)
    session_id = store.sessions.create(model="m", mode="default")
    store.conversation.append(session_id, Message.user("rebuild me please"))
    cut = store.conversation.append(session_id, Message.user("rewound words"))
    store.conversation.rewind(session_id, cut)
    store.close()
    index = search_index_path(database_path(workspace))
    for path in index.parent.glob(index.name + "*"):
        path.unlink()
    assert found(workspace, "rebuild") == []
    Store.open(workspace, environ=env).close()
    assert found(workspace, "rebuild") == [session_id]
    assert found(workspace, "rewound") == []


def test_with_database_and_index_gone_the_session_files_bring_the_sessions_back(
    workspace: Path, env: dict[str, str]
) -> None:
    from engine.storage.sessions.snapshot import SessionFile, SnapshotHeader, encode_message

    store = Store.open(workspace, environ=env)
    session_id = store.sessions.create(model="m", mode="default")
    messages = [Message.user("snapshot words"), Message.assistant("answer")]
    store.conversation.append_many(session_id, messages)
    header = SnapshotHeader(session_id, "m", "default", "2026-01-01T00:00:00", "2026-01-01T00:00:01")
    SessionFile(workspace, session_id, store.sessions.file_seal(session_id)).save(
        header, [], [encode_message(m) for m in messages]
    )
    store.close()
    for path in (workspace / ".coder").glob("*.db*"):
        path.unlink()
    Store.open(workspace, environ=env).close()
    assert found(workspace, "snapshot") == [session_id]


def test_a_damaged_index_is_replaced_and_writes_go_on(workspace: Path, env: dict[str, str]) -> None:
    Store.open(workspace, environ=env).close()
    index = search_index_path(database_path(workspace))
    for path in index.parent.glob(index.name + "-*"):
        path.unlink()
    index.write_bytes(b"this is not a database" * 100)
    store = Store.open(workspace, environ=env)
    session_id = store.sessions.create(model="m", mode="default")
    store.conversation.append(session_id, Message.user("after the damage"))
    store.close()
    assert found(workspace, "damage") == [session_id]


def test_the_query_words_are_never_syntax() -> None:
    assert fts_query('a "b" OR c*') == '"a"* """b"""* "OR"* "c*"*'
    assert fts_query("  ") == ""
    assert fts_query("flaky test", prefix=False) == '"flaky" "test"'


def test_all_folders_lists_this_folder_first(tmp_path: Path, env: dict[str, str]) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    ids = {}
    for folder in (here, there):
        folder.mkdir()
        store = Store.open(folder, environ=env)
        ids[folder] = store.sessions.create(model="m", mode="default")
        store.conversation.append(ids[folder], Message.user(f"shared word from {folder.name}"))
        store.close()
    assert known_folders(env) == [here.resolve(), there.resolve()]
    hits, elapsed = search_folders(here, known_folders(env), "shared")
    assert [(hit.session_id, Path(hit.folder).name) for hit in hits] == [(ids[here], "here"), (ids[there], "there")]
    assert elapsed >= 0
