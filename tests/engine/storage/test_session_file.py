"""SPEC 12: the session snapshot stays a valid, replayable file after every save, appending in place."""

from __future__ import annotations

import json
from pathlib import Path

from engine.messages import Message
from engine.storage.sessions.snapshot import SessionFile, SnapshotHeader, encode_message, load_snapshot

TOOLS = [{"type": "function", "function": {"name": "read", "description": "Read.", "parameters": {}}}]


def header(mode: str = "default", updated_at: str = "t1") -> SnapshotHeader:
    return SnapshotHeader("s1", "m", mode, "t0", updated_at)


def test_messages_are_appended_and_the_file_is_valid_after_every_save(tmp_path: Path) -> None:
    snapshot = SessionFile(tmp_path, "s1")
    encoded = [encode_message(Message.system("sys"))]
    for number in range(5):
        encoded.append(encode_message(Message.user(f"message {number}")))
        snapshot.save(header(updated_at=f"t{number}"), TOOLS, encoded)
        loaded = load_snapshot(snapshot.path)
        assert [m.content for m in loaded.messages] == ["sys", *[f"message {n}" for n in range(number + 1)]]
        assert json.loads(snapshot.path.read_text())["updated_at"] == f"t{number}"
    assert loaded.tools == TOOLS and loaded.model == "m"
    assert not list(snapshot.path.parent.glob("*.tmp"))


def test_a_shorter_tail_leaves_valid_json(tmp_path: Path) -> None:
    snapshot = SessionFile(tmp_path, "s1")
    encoded = [encode_message(Message.user("hi"))]
    snapshot.save(header(mode="auto_edit_long_name"), TOOLS, encoded)
    snapshot.save(header(mode="yolo"), TOOLS, encoded)
    assert load_snapshot(snapshot.path).mode == "yolo"


def test_a_new_system_prompt_or_a_rewritten_history_rewrites_the_whole_file(tmp_path: Path) -> None:
    snapshot = SessionFile(tmp_path, "s1")
    user = encode_message(Message.user("hi"))
    snapshot.save(header(), TOOLS, [encode_message(Message.system("old")), user])
    snapshot.save(header(), TOOLS, [encode_message(Message.system("new")), user])
    assert [m.content for m in load_snapshot(snapshot.path).messages] == ["new", "hi"]
    snapshot.save(header(), TOOLS, [encode_message(Message.user("summary"))])
    assert [m.content for m in load_snapshot(snapshot.path).messages] == ["summary"]


def test_a_file_removed_behind_its_back_is_written_anew(tmp_path: Path) -> None:
    snapshot = SessionFile(tmp_path, "s1")
    encoded = [encode_message(Message.user("one"))]
    snapshot.save(header(), TOOLS, encoded)
    snapshot.path.unlink()
    encoded.append(encode_message(Message.user("two")))
    snapshot.save(header(), TOOLS, encoded)
    assert [m.content for m in load_snapshot(snapshot.path).messages] == ["one", "two"]
