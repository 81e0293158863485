"""SPEC 7 (issue 28): `/undo` puts back what a shell command changed, through the real `coder-tui`, in yolo and
with the command approved, without git and inside a git repository (whose index and refs stay untouched)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.headless.test_headless_cli import run_cli
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.support.tree import tree_state

BINARY = bytes(range(256)) * 40

SHELL_CHANGES = {
    "rm_rf": "rm -rf src",
    "sed_in_place": "sed -i 's/hello/bye/' src/app.py src/lib/util.py",
    "rename": "mv src/app.py src/main.py && mv src/lib src/library",
    "chmod": "chmod 600 run.sh && chmod 700 src/lib",
    "many_files": "mkdir -p gen && for i in $(seq 1 300); do echo $i > gen/f$i.txt; done",
    "symlinks": "ln -s src/app.py app-link && rm link-to-lib && ln -s run.sh link-to-lib",
    "binary_overwrite": "head -c 5000 /dev/urandom > data.bin && printf '\\0\\1' >> data.bin",
    "file_to_folder": "rm run.sh && mkdir run.sh && echo x > run.sh/inside",
}


def make_workspace(root: Path) -> None:
    (root / "src" / "lib").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hello')\n")
    (root / "src" / "lib" / "util.py").write_text("def hello():\n    return 'hello'\n")
    (root / "src" / "lib" / "empty").mkdir()
    (root / "run.sh").write_text("#!/bin/sh\necho hello\n")
    (root / "run.sh").chmod(0o755)
    (root / "data.bin").write_bytes(BINARY)
    (root / "link-to-lib").symlink_to("src/lib")
    (root / "dangling").symlink_to("nowhere/at/all")


def shell_turn(server: ScriptedServer, workspace: Path, command: str, *, mode: str = "yolo") -> None:
    server.add(reply(tool_call("bash", command=command)), text("Done."))
    done = run_cli(["-p", "change things", "--mode", mode], workspace, server)
    assert done.returncode == 0, done.stderr


def undo(workspace: Path, server: ScriptedServer) -> str:
    done = run_cli(["--continue", "-p", "/undo"], workspace, server)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


@pytest.mark.parametrize("command", list(SHELL_CHANGES.values()), ids=list(SHELL_CHANGES))
def test_undo_puts_back_what_a_yolo_shell_command_changed(
    tmp_path: Path, scripted_server: ScriptedServer, command: str
) -> None:
    make_workspace(tmp_path)
    before = tree_state(tmp_path)
    shell_turn(scripted_server, tmp_path, command)
    assert tree_state(tmp_path) != before
    undo(tmp_path, scripted_server)
    assert tree_state(tmp_path) == before


def test_undo_puts_back_an_approved_shell_command(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    """Default mode: the risky command asks, the user's config approves it without a dialog."""
    (tmp_path / ".xdg" / "coder").mkdir(parents=True)
    (tmp_path / ".xdg" / "coder" / "config.json").write_text(json.dumps({"auto_approve_ask": True}))
    make_workspace(tmp_path)
    before = tree_state(tmp_path)
    shell_turn(scripted_server, tmp_path, "rm -rf src && sed -i 's/hello/bye/' run.sh", mode="default")
    assert not (tmp_path / "src").exists()
    undo(tmp_path, scripted_server)
    assert tree_state(tmp_path) == before


def test_a_turn_mixing_edit_and_bash_undoes_as_one(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    make_workspace(tmp_path)
    before = tree_state(tmp_path)
    scripted_server.add(
        reply(tool_call("read", id="r", path="src/app.py")),
        reply(tool_call("edit", id="e", path="src/app.py", old_string="hello", new_string="edited")),
        reply(tool_call("bash", id="b", command="sed -i 's/edited/sedded/' src/app.py && rm -rf src/lib && touch new")),
        reply(tool_call("write", id="w", path="src/lib/util.py", content="rewritten\n")),
        text("Done."),
    )
    assert run_cli(["-p", "mix", "--mode", "yolo"], tmp_path, scripted_server).returncode == 0
    assert (tmp_path / "src" / "app.py").read_text() == "print('sedded')\n"
    undo(tmp_path, scripted_server)
    assert tree_state(tmp_path) == before


def _git(root: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True, env=env)
    return done.stdout


def test_inside_git_undo_leaves_the_index_refs_and_stash_alone(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    make_workspace(tmp_path)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    (tmp_path / "src" / "app.py").write_text("print('staged')\n")
    _git(tmp_path, "add", "src/app.py")
    index_before = (tmp_path / ".git" / "index").read_bytes()
    refs_before = _git(tmp_path, "show-ref")
    before = tree_state(tmp_path)
    shell_turn(scripted_server, tmp_path, "rm -rf src run.sh && echo new > added.txt")
    undo(tmp_path, scripted_server)
    assert tree_state(tmp_path) == before
    assert (tmp_path / ".git" / "index").read_bytes() == index_before
    assert _git(tmp_path, "show-ref") == refs_before
    assert _git(tmp_path, "stash", "list") == ""


def test_what_undo_does_not_keep_is_named(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    make_workspace(tmp_path)
    (tmp_path / ".gitignore").write_text("build/\n")
    shell_turn(scripted_server, tmp_path, "mkdir -p node_modules/x build && echo 1 > node_modules/x/i.js && "
               "echo 2 > build/out && echo 3 > kept.txt")
    said = undo(tmp_path, scripted_server)
    assert "node_modules/ (in undo.skip)" in said
    assert "build/ (ignored by .gitignore)" in said
    assert not (tmp_path / "kept.txt").exists()
    assert (tmp_path / "node_modules" / "x" / "i.js").exists()
