"""``coder-tui -p TEXT --worktree [NAME]`` (SPEC 26): the input runs as an agent on a new git worktree and branch,
the main checkout stays as it was, and the branch is printed at the end; outside a git repository it says why."""

from __future__ import annotations

import json
from pathlib import Path

from tests.engine.orchestrator.test_agents import git, make_repo
from tests.headless.test_headless_cli import run_cli
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


def test_worktree_runs_the_input_on_its_own_branch_and_prints_it(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    repo = make_repo(tmp_path / "repo")
    scripted_server.add(reply(tool_call("write", path="feature.txt", content="feature\n")), text("Written."))
    home = {"HOME": str(tmp_path / "home")}
    done = run_cli(["-p", "add the feature", "--worktree", "feature", "--mode", "yolo"], repo, scripted_server,
                   extra_env=home)

    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("Written.\n\nbranch: coder/feature")
    tree = repo / ".coder" / "worktrees" / "feature"
    assert f"worktree: {tree}" in done.stderr
    assert (tree / "feature.txt").read_text() == "feature\n"
    assert git(repo, "show", "coder/feature:feature.txt") == "feature\n"
    assert not (repo / "feature.txt").exists()


def test_worktree_json_result_names_the_branch(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    repo = make_repo(tmp_path / "repo")
    scripted_server.add(text("Nothing to change."))
    done = run_cli(["-p", "look around", "--worktree", "--output-format", "json"], repo, scripted_server,
                   extra_env={"HOME": str(tmp_path / "home")})

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert (result["type"], result["ok"], result["branch"]) == ("result", True, "coder/look-around")
    assert result["worktree"] == str(repo / ".coder" / "worktrees" / "look-around")


def test_worktree_outside_a_git_repository_says_why(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    done = run_cli(["-p", "add the feature", "--worktree"], folder, scripted_server,
                   extra_env={"HOME": str(tmp_path / "home")})

    assert done.returncode == 1
    assert "is not in a git repository" in done.stderr and "git init" in done.stderr
    assert "branch:" not in done.stdout
