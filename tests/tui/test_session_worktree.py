"""``coder-tui --worktree [NAME]`` in the full screen (SPEC 26): the whole session works on a new git worktree and
branch, so what it writes never lands in the checkout; outside a git repository it says why and does not start."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from tests.engine.orchestrator.test_agents import git, make_repo
from tests.support.pty_app import REPO, PtyApp
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


def test_the_full_screen_session_works_on_its_worktree(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    repo = make_repo(tmp_path / "repo")
    scripted_server.add(reply(tool_call("write", path="wide.txt", content="wide\n")), text("WROTE-IT"))
    args = ("--worktree", "wide", "--mode", "yolo")
    with PtyApp(repo, scripted_server.base_url, tmp_path / "home", size=(120, 40), args=args) as app:
        app.wait_shown("scripted-model")
        app.type("write wide.txt\r")
        app.wait_shown("WROTE-IT")

    tree = repo / ".coder" / "worktrees" / "wide"
    assert (tree / "wide.txt").read_text() == "wide\n"
    assert not (repo / "wide.txt").exists()
    assert git(tree, "rev-parse", "--abbrev-ref", "HEAD").strip() == "coder/wide"


def test_worktree_outside_a_git_repository_does_not_start(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO)}
    master, terminal = pty.openpty()  # a terminal on stdin: the full screen, not a headless run
    try:
        done = subprocess.run(
            [sys.executable, "-m", "coder_tui", "--cwd", str(folder), "--worktree"], env=env, capture_output=True,
            text=True, timeout=60, stdin=terminal,
        )
    finally:
        os.close(master)
        os.close(terminal)

    assert done.returncode == 2
    assert "--worktree:" in done.stderr and "is not in a git repository" in done.stderr
