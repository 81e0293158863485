"""SPEC 7 `/undo`: per-turn snapshots restore every file a turn changed, byte for byte and mode for mode; created
files (and the folders made for them) are deleted, deleted files recreated; a stack of turns; no git."""

from __future__ import annotations

import os
import random
import stat
from pathlib import Path

import pytest

from engine.storage.db import database_path
from engine.storage.errors import StorageError
from engine.storage.store import Store
from engine.storage.undo.journal import NOTHING_TO_UNDO, UndoJournal
from engine.storage.undo.session_journal import open_journal

Tree = dict[str, tuple[bytes, int] | str]


def tree(root: Path) -> Tree:
    """Every file (bytes, mode) and folder under ``root``, ``.coder/`` excepted."""
    found: Tree = {}
    for path in root.rglob("*"):
        relative = path.relative_to(root).as_posix()
        if relative == ".coder" or relative.startswith(".coder/"):
            continue
        found[relative] = "dir" if path.is_dir() else (path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
    return found


def write(journal: UndoJournal, path: Path, data: bytes, mode: int | None = None) -> None:
    """What write/edit/patch do: record first, then change the file."""
    journal.record(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if mode is not None:
        os.chmod(path, mode)


def delete(journal: UndoJournal, path: Path) -> None:
    journal.record(path)
    path.unlink()


@pytest.fixture
def journal(store: Store, workspace: Path) -> UndoJournal:
    session_id = store.sessions.create(model="m", mode="auto-edit")
    return open_journal(store, session_id, workspace, max_turns=5)


def test_undo_restores_a_modified_file_byte_exact(journal: UndoJournal, workspace: Path) -> None:
    target = workspace / "crlf.txt"
    original = b"\xef\xbb\xbfline one\r\nline two\r\nno newline at end"
    target.write_bytes(original)
    journal.begin_turn("t1", "edit crlf.txt")
    write(journal, target, b"line one\nrewritten\n")
    journal.end_turn()
    result = journal.undo_last_turn()
    assert result.applied and result.restored == ("crlf.txt",)
    assert target.read_bytes() == original
    assert result.summary() == 'undid the turn "edit crlf.txt": restored crlf.txt. 0 more turn(s) to undo.'


def test_undo_deletes_a_created_file_and_the_folders_made_for_it(journal: UndoJournal, workspace: Path) -> None:
    (workspace / "src").mkdir()
    before = tree(workspace)
    journal.begin_turn("t1")
    write(journal, workspace / "src" / "new" / "deep" / "mod.py", b"print()\n")
    write(journal, workspace / "src" / "new" / "other.py", b"")
    journal.end_turn()
    result = journal.undo_last_turn()
    assert sorted(result.deleted) == ["src/new/deep/mod.py", "src/new/other.py"]
    assert tree(workspace) == before


def test_undo_recreates_a_deleted_file_with_its_mode(journal: UndoJournal, workspace: Path) -> None:
    script = workspace / "run.sh"
    script.write_bytes(b"#!/bin/sh\necho hi\n")
    os.chmod(script, 0o751)
    before = tree(workspace)
    journal.begin_turn("t1")
    delete(journal, script)
    journal.end_turn()
    result = journal.undo_last_turn()
    assert result.recreated == ("run.sh",)
    assert tree(workspace) == before


def test_undo_restores_mode_bits(journal: UndoJournal, workspace: Path) -> None:
    target = workspace / "tool"
    target.write_bytes(b"x")
    os.chmod(target, 0o700)
    journal.begin_turn("t1")
    write(journal, target, b"y", mode=0o644)
    journal.end_turn()
    journal.undo_last_turn()
    assert stat.S_IMODE(target.stat().st_mode) == 0o700 and target.read_bytes() == b"x"


def test_only_the_first_state_of_a_file_in_a_turn_is_kept(journal: UndoJournal, workspace: Path) -> None:
    target = workspace / "a.txt"
    target.write_bytes(b"before the turn\n")
    journal.begin_turn("t1")
    write(journal, target, b"first edit\n")
    write(journal, target, b"second edit\n")
    journal.end_turn()
    journal.undo_last_turn()
    assert target.read_bytes() == b"before the turn\n"


def test_repeated_undo_walks_the_stack_newest_first(journal: UndoJournal, workspace: Path) -> None:
    target = workspace / "a.txt"
    target.write_bytes(b"v0")
    for version in (1, 2, 3):
        journal.begin_turn(f"t{version}", f"make v{version}")
        write(journal, target, f"v{version}".encode())
        journal.end_turn()
    assert journal.depth == 3
    for expected in (b"v2", b"v1", b"v0"):
        assert journal.undo_last_turn().applied
        assert target.read_bytes() == expected
    result = journal.undo_last_turn()
    assert not result.applied and result.summary() == NOTHING_TO_UNDO


def test_the_stack_keeps_only_max_turns(store: Store, workspace: Path) -> None:
    journal = open_journal(store, store.sessions.create(model="m", mode="yolo"), workspace, max_turns=2)
    target = workspace / "a.txt"
    target.write_bytes(b"v0")
    for version in (1, 2, 3):
        journal.begin_turn(f"t{version}")
        write(journal, target, f"v{version}".encode())
        journal.end_turn()
    assert journal.depth == 2
    objects = workspace / ".coder" / "undo" / "objects"
    kept = {p.read_bytes() for p in objects.rglob("*") if p.is_file()}
    assert kept == {b"v0", b"v1", b"v2"}  # v0 as the session's first state (/diff), v1 and v2 as t2's and t3's
    journal.undo_last_turn()
    journal.undo_last_turn()
    assert target.read_bytes() == b"v1"
    assert not journal.undo_last_turn().applied


def test_a_turn_that_changed_no_file_is_not_on_the_stack(journal: UndoJournal, workspace: Path) -> None:
    (workspace / "a.txt").write_bytes(b"v0")
    journal.begin_turn("t1")
    write(journal, workspace / "a.txt", b"v1")
    journal.end_turn()
    journal.begin_turn("t2", "just a question")
    journal.end_turn()
    assert journal.depth == 1
    assert journal.undo_last_turn().turn_id == "t1"


def test_nothing_to_undo_is_a_readable_message(journal: UndoJournal) -> None:
    result = journal.undo_last_turn()
    assert not result.applied
    assert result.summary() == NOTHING_TO_UNDO


def test_a_file_changed_outside_the_agent_is_reported_before_it_is_overwritten(
    journal: UndoJournal, workspace: Path
) -> None:
    edited, created = workspace / "a.txt", workspace / "new.txt"
    edited.write_bytes(b"original")
    journal.begin_turn("t1", "edit")
    write(journal, edited, b"agent")
    write(journal, created, b"agent made me")
    journal.end_turn()
    edited.write_bytes(b"the user's own change")
    created.write_bytes(b"the user kept working here")

    refused = journal.undo_last_turn()
    assert not refused.applied
    assert refused.conflicts == ("a.txt", "new.txt")
    assert "changed outside coder" in refused.summary() and "Confirm" in refused.summary()
    assert edited.read_bytes() == b"the user's own change" and created.exists()
    assert journal.depth == 1

    forced = journal.undo_last_turn(force=True)
    assert forced.applied and forced.conflicts == ("a.txt", "new.txt")
    assert edited.read_bytes() == b"original" and not created.exists()
    assert "overwriting outside changes" in forced.summary()


def test_a_mode_change_outside_the_agent_is_a_conflict(journal: UndoJournal, workspace: Path) -> None:
    target = workspace / "a.sh"
    target.write_bytes(b"x")
    journal.begin_turn("t1")
    write(journal, target, b"y")
    journal.end_turn()
    os.chmod(target, 0o755)
    assert journal.undo_last_turn().conflicts == ("a.sh",)


def test_undo_survives_a_restart(workspace: Path) -> None:
    store = Store.open(workspace, environ={})
    session_id = store.sessions.create(model="m", mode="auto-edit")
    journal = open_journal(store, session_id, workspace, max_turns=5)
    target = workspace / "a.txt"
    target.write_bytes(b"before")
    journal.begin_turn("t1")
    write(journal, target, b"after")
    journal.end_turn()
    store.close()

    reopened = Store.open(workspace, environ={})
    try:
        assert open_journal(reopened, session_id, workspace, max_turns=5).undo_last_turn().applied
        assert target.read_bytes() == b"before"
    finally:
        reopened.close()


def test_a_turn_cut_by_a_crash_is_undoable_after_restart(workspace: Path) -> None:
    store = Store.open(workspace, environ={})
    session_id = store.sessions.create(model="m", mode="auto-edit")
    journal = open_journal(store, session_id, workspace, max_turns=5)
    target = workspace / "a.txt"
    target.write_bytes(b"before")
    journal.begin_turn("t1")
    write(journal, target, b"written just before the crash")
    store.close()  # no end_turn: the process died

    reopened = Store.open(workspace, environ={})
    try:
        result = open_journal(reopened, session_id, workspace, max_turns=5).undo_last_turn()
        assert result.applied and result.conflicts == ()
        assert target.read_bytes() == b"before"
    finally:
        reopened.close()


def test_undo_stacks_are_per_session(store: Store, workspace: Path) -> None:
    first = open_journal(store, store.sessions.create(model="m", mode="yolo"), workspace, max_turns=5)
    second = open_journal(store, store.sessions.create(model="m", mode="yolo"), workspace, max_turns=5)
    first.begin_turn("t1")
    write(first, workspace / "a.txt", b"x")
    first.end_turn()
    assert second.undo_last_turn().summary() == NOTHING_TO_UNDO
    assert first.depth == 1


def test_record_outside_a_turn_is_a_wiring_error(journal: UndoJournal, workspace: Path) -> None:
    with pytest.raises(RuntimeError, match="begin_turn"):
        journal.record(workspace / "a.txt")


def test_record_refuses_a_path_outside_the_workspace(journal: UndoJournal, tmp_path: Path) -> None:
    journal.begin_turn("t1")
    with pytest.raises(StorageError, match="outside the workspace"):
        journal.record(tmp_path / "elsewhere.txt")


def test_file_contents_stay_out_of_the_database_in_private_copies(journal: UndoJournal, workspace: Path) -> None:
    secret = workspace / ".env"
    secret.write_bytes(b"PASSWORD=correct-horse-battery-staple\n")
    journal.begin_turn("t1")
    write(journal, secret, b"PASSWORD=changed\n")
    journal.end_turn()
    db = database_path(workspace)
    for path in db.parent.glob("coder.db*"):
        assert b"correct-horse" not in path.read_bytes()
    copies = [p for p in (workspace / ".coder" / "undo").rglob("*") if p.is_file()]
    assert copies and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in copies)


def test_copies_left_by_a_crash_are_swept(store: Store, workspace: Path, journal: UndoJournal) -> None:
    stray_turn = workspace / ".coder" / "undo" / journal.session_id / "999" / "0"
    stray_baseline = workspace / ".coder" / "undo" / journal.session_id / "baseline" / "deadbeef"
    for stray in (stray_turn, stray_baseline):
        stray.parent.mkdir(parents=True, exist_ok=True)
        stray.write_bytes(b"left over")
    open_journal(store, journal.session_id, workspace, max_turns=5)
    assert not stray_turn.parent.exists() and not stray_baseline.exists()


def test_session_changes_compare_the_first_snapshot_with_now(journal: UndoJournal, workspace: Path) -> None:
    (workspace / "a.txt").write_bytes(b"a0")
    (workspace / "gone.txt").write_bytes(b"bye")
    (workspace / "same.txt").write_bytes(b"same")
    journal.begin_turn("t1")
    write(journal, workspace / "a.txt", b"a1")
    write(journal, workspace / "same.txt", b"other")
    journal.end_turn()
    journal.begin_turn("t2")
    write(journal, workspace / "a.txt", b"a2")
    write(journal, workspace / "new.txt", b"new")
    delete(journal, workspace / "gone.txt")
    write(journal, workspace / "same.txt", b"same")
    journal.end_turn()
    changes = {c.path: (c.before.data, c.after.data) for c in journal.session_changes()}
    assert changes == {"a.txt": (b"a0", b"a2"), "gone.txt": (b"bye", None), "new.txt": (None, b"new")}
    journal.undo_last_turn()
    journal.undo_last_turn()
    assert journal.session_changes() == []


CONTENTS = [
    lambda rng: rng.randbytes(rng.randint(0, 300)),
    lambda rng: b"\r\n".join(f"line {i} \t{rng.random()}".encode() for i in range(rng.randint(1, 20))) + b"\r\n",
    lambda rng: "\n".join(f"ünïcode {i}" for i in range(rng.randint(1, 10))).encode(),  # no trailing newline
    lambda rng: b"",
    lambda rng: b"\x00\x01binary\x00" * rng.randint(1, 5),
]
MODES = [0o644, 0o755, 0o600, 0o640, 0o700]


def random_turn(rng: random.Random, journal: UndoJournal, root: Path, turn: int) -> None:
    """One to six random changes, at least one, as write/edit/patch would make them."""
    for step in range(rng.randint(1, 6)):
        files = sorted(p for p in root.rglob("*") if p.is_file() and ".coder" not in p.parts)
        action = rng.choice(["modify", "modify", "chmod", "delete", "create", "create_deep"])
        if action in ("modify", "chmod", "delete") and files:
            target = rng.choice(files)
            if action == "modify":
                write(journal, target, rng.choice(CONTENTS)(rng), mode=rng.choice([None, rng.choice(MODES)]))
            elif action == "chmod":
                write(journal, target, target.read_bytes(), mode=rng.choice(MODES))
            else:
                delete(journal, target)
        elif action == "create_deep":
            write(journal, root / f"d{turn}" / f"e{step}" / "f.txt", rng.choice(CONTENTS)(rng))
        else:
            write(journal, root / f"new_{turn}_{step}.dat", rng.choice(CONTENTS)(rng), mode=rng.choice(MODES))


@pytest.mark.parametrize("seed", range(12))
def test_random_multi_file_turns_undo_byte_exact(store: Store, workspace: Path, seed: int) -> None:
    rng = random.Random(seed)
    for index in range(rng.randint(3, 8)):
        path = workspace / rng.choice(["", "pkg/", "pkg/sub/"]) / f"f{index}.bin"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(rng.choice(CONTENTS)(rng))
        os.chmod(path, rng.choice(MODES))
    journal = open_journal(store, store.sessions.create(model="m", mode="yolo"), workspace, max_turns=10)
    states: list[Tree] = []
    for turn in range(rng.randint(2, 6)):
        states.append(tree(workspace))
        journal.begin_turn(f"t{turn}")
        random_turn(rng, journal, workspace, turn)
        journal.end_turn()
    for turn, expected in reversed(list(enumerate(states))):
        result = journal.undo_last_turn()
        assert result.applied and result.turn_id == f"t{turn}", result.summary()
        assert tree(workspace) == expected, f"seed {seed}: not as before turn t{turn}"
    assert journal.undo_last_turn().summary() == NOTHING_TO_UNDO
