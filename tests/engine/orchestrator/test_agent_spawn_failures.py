"""A ``/spawn`` that fails after making its worktree (SPEC 26): a session that cannot start, or a model that fails
before the agent changed anything, leaves no worktree, branch or folder behind; an agent that changed files before
failing keeps them and says so."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from engine.command_results import CommandFailed
from tests.engine.orchestrator.test_agents import agent_of, git, make_repo, spawn, writes_its_file
from tests.support.fakes import make_orchestrator
from tests.support.scenario import ReplyLike, error, reply, tool_call
from tests.support.scripted_server import ScriptedServer


def fails_at_once_or_after_a_write(body: dict[str, Any]) -> ReplyLike:
    """``doomed``: the model refuses the first request; ``halfway``: writes its file, then the model refuses."""
    if agent_of(body) == "halfway" and body["messages"][-1]["role"] == "user":
        return reply(tool_call("write", path="halfway.txt", content="half\n"))
    return error(400, "the model refused the request")


def left_behind(repo: Path) -> tuple[list[str], str, list[str]]:
    """The worktrees git knows (besides the main one), the coder/ branches, the folders under .coder/worktrees."""
    listed = git(repo, "worktree", "list", "--porcelain").splitlines()
    trees = [line.split(" ", 1)[1] for line in listed if line.startswith("worktree ")][1:]
    folder = repo / ".coder" / "worktrees"
    branches = git(repo, "branch", "--list", "coder/*").replace("+", "").strip()
    return trees, branches, sorted(os.listdir(folder)) if folder.is_dir() else []


async def test_a_spawn_whose_session_cannot_start_leaves_no_worktree_nor_branch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import engine.orchestrator.agent_pool as agent_pool

    def disk_full(*args: Any, **kwargs: Any) -> Any:
        raise OSError(28, "No space left on device")

    repo = make_repo(tmp_path / "repo")
    monkeypatch.setattr(agent_pool, "make_runtime", disk_full)
    with ScriptedServer(fallback=writes_its_file) as server:
        orchestrator, log, _ = make_orchestrator(repo, server.base_url)
        await orchestrator.run_input("/spawn --name broken agent broken: write your file")
        listed = await orchestrator.run_input("/agents")

    failed = log.of(CommandFailed)[-1]
    assert failed.command == "/spawn"
    assert "agent broken could not start: [Errno 28] No space left on device" in failed.text
    assert "branch coder/broken were removed" in failed.text
    assert left_behind(repo) == ([], "", [])
    assert listed.reason == "completed" and orchestrator.agents.rows() == ()
    assert git(repo, "status", "--porcelain") == ""


async def test_an_agent_whose_model_fails_at_once_leaves_nothing_and_one_that_wrote_keeps_its_tree(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "repo")
    with ScriptedServer(fallback=fails_at_once_or_after_a_write) as server:
        orchestrator, log, _ = make_orchestrator(repo, server.base_url)
        for name in ("doomed", "halfway"):
            await spawn(orchestrator, name)
        doomed, halfway = [await asyncio.wait_for(orchestrator.agents.wait(n), 30) for n in ("doomed", "halfway")]
        await orchestrator.run_input("/agents show doomed")

    assert (doomed.state.value, halfway.state.value) == ("failed", "failed")
    assert "the model refused the request" in doomed.note
    assert doomed.note.endswith("branch coder/doomed were removed")
    assert "branch coder/halfway stay (with changes in them): /agents discard removes them" in halfway.note
    worktrees = repo / ".coder" / "worktrees"
    assert left_behind(repo) == ([str(worktrees / "halfway")], "coder/halfway", ["halfway"])
    assert (worktrees / "halfway" / "halfway.txt").read_text() == "half\n"
    # Its transcript stays in the database; its tree is not opened again.
    assert f"agent doomed's worktree {worktrees / 'doomed'} is gone" in log.of(CommandFailed)[-1].text
