"""Issue 40 item 9 (SPEC 19, 20): state planted in ``.coder/`` is checked where it is opened.

Through the real ``coder-tui`` headless against the scripted server: links anywhere in the state folders (the undo
content store, its fan-out folders, folders coder-tui may make later) refuse the state folder before anything is
copied through them; an old-schema yolo session planted in a monorepo's sub-folder never sets the mode or runs a
command. Asserted on what the attack reached: files outside, a marker file, the mode the turn ran in.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from engine.capture.objects import ObjectStore, ObjectStoreError
from tests.security.test_repository_state import mode_of, run, snapshot, world  # noqa: F401 (fixture)
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

V2_DATABASE = Path(__file__).resolve().parents[1] / "engine" / "storage" / "data" / "v2.db"


def _edit_turn(server: ScriptedServer, workspace: Path) -> None:
    """A turn that makes the undo capture copy a workspace file into the content store."""
    (workspace / "notes.txt").write_text("workspace secret 4f2\n")
    server.add(reply(tool_call("write", path="notes.txt", content="changed\n")), text("done"))


@pytest.mark.parametrize(
    "planted", ["undo/objects", "undo/objects/{fan}", "undo/later-state", "capture", "state-of-next-year"]
)
def test_a_link_anywhere_in_the_state_folder_copies_nothing_outside(
    world: dict[str, Path], scripted_server: ScriptedServer, planted: str  # noqa: F811 (fixture)
) -> None:
    """Every folder of ``.coder/``, known today or not, down to the content store's fan-out folders: a link there is
    refused, and no copy of a workspace file lands where it points."""
    victim, outside = world["victim"], world["outside"]
    names = [planted.format(fan=f"{n:02x}") for n in range(256)] if "{fan}" in planted else [planted]
    for name in names:
        link = victim / ".coder" / name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(outside, target_is_directory=True)
    before = snapshot(outside)
    _edit_turn(scripted_server, victim)
    done = run(victim, world["victim_xdg"], scripted_server, "--mode", "auto-edit", "-p", "change the notes")
    assert done.returncode != 0 and "is a symbolic link" in done.stderr, done.stderr
    assert snapshot(outside) == before
    assert (victim / "notes.txt").read_text() == "workspace secret 4f2\n"


def test_a_link_the_store_meets_after_start_is_never_written_through(tmp_path: Path) -> None:
    """Checked where opened too: a fan-out folder that is a link refuses the copy, whatever was checked at start."""
    outside = tmp_path / "outside"
    outside.mkdir()
    store = ObjectStore(tmp_path / "objects")
    source = tmp_path / "file"
    source.write_bytes(b"workspace secret")
    digest = hashlib.sha256(b"workspace secret").hexdigest()
    (tmp_path / "objects").mkdir()
    (tmp_path / "objects" / digest[:2]).symlink_to(outside)
    with pytest.raises(ObjectStoreError, match="symbolic link"):
        store.put_file(source)
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("how", ["--continue", "--resume"])
def test_an_unsealed_yolo_session_in_a_monorepo_sub_folder_never_sets_the_mode(
    world: dict[str, Path], scripted_server: ScriptedServer, how: str  # noqa: F811 (fixture)
) -> None:
    """The repository's root is above the workspace, and the state is not tracked by it: an old-schema database
    with a yolo session is still not the user's, so it never gives its mode and the command is not run unasked."""
    root = world["victim"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    workspace = root / "services" / "api"
    (workspace / ".coder").mkdir(parents=True)
    shutil.copy(V2_DATABASE, workspace / ".coder" / "coder.db")
    with sqlite3.connect(workspace / ".coder" / "coder.db") as conn:
        conn.execute("UPDATE sessions SET mode = 'yolo', updated_at = '2999-01-01T00:00:00+00:00'")
    marker = world["outside"] / "marker"
    scripted_server.add(reply(tool_call("bash", command=f"touch {marker}")), text("done"))
    picked = ["--continue"] if how == "--continue" else ["--resume", "v2session000"]
    done = run(workspace, world["victim_xdg"], scripted_server, *picked, "-p", "go on")
    assert not marker.exists(), done.stderr
    # --continue finds no session of the user's to go on with; --resume runs the turn, in the default mode.
    assert bool(scripted_server.requests) is (how == "--resume"), done.stderr
    assert all(mode_of(request.body) == "default" for request in scripted_server.requests)
