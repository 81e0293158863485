"""Finding 1 through the whole agent: the scripted model tries the git-configuration attacks in each mode, the
`task` sub-agent included, and the file outside the workspace never appears."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engine.command_results import DiffShown
from engine.interaction import ApprovalAnswer, ApprovalDecision
from engine.modes import Mode
from engine.sandbox import detect
from tests.security.conftest import git, snapshot
from tests.support.fakes import close_orchestrators  # noqa: F401 (autouse fixture)
from tests.support.fakes import CREATED, FakeInteraction, make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer




def _results(server: ScriptedServer) -> dict[str, dict]:
    messages = server.requests[-1].body["messages"]
    return {m["tool_call_id"]: json.loads(m["content"]) for m in messages if m["role"] == "tool"}


def _export_attack(mark: Path) -> str:
    return f"export GIT_CONFIG_PARAMETERS=\"'core.fsmonitor'='touch {mark}; false'\"; git status"


@pytest.mark.parametrize("mode", [Mode.PLAN, Mode.DEFAULT, Mode.AUTO_EDIT])
async def test_env_attack_asks_and_a_refusal_runs_nothing(
    world: tuple[Path, Path], scripted_server: ScriptedServer, mode: Mode
) -> None:
    root, outside = world
    mark = outside / "pwned"
    prefix = f"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch {mark}; false' git status"
    scripted_server.add(
        reply(tool_call("bash", id="c1", command=_export_attack(mark)), tool_call("bash", id="c2", command=prefix)),
        text("done"),
    )
    # "No, and tell it why": the turn goes on, so the second call is asked about too.
    refusal = ApprovalAnswer(ApprovalDecision.NO, "not this")
    interaction = FakeInteraction([refusal, refusal])
    orch, _, _ = make_orchestrator(root, scripted_server.base_url, mode=mode, interaction=interaction)
    await orch.run_input("check the status")
    assert len(interaction.approval_requests) == 2
    assert all(r["ok"] is False for r in _results(scripted_server).values())
    assert not mark.exists()


async def test_headless_plan_refuses_the_env_attack(world: tuple[Path, Path], scripted_server: ScriptedServer) -> None:
    root, outside = world
    mark = outside / "pwned"
    attack = f"env GIT_CONFIG_PARAMETERS=\"'core.fsmonitor'='touch {mark}; false'\" git status"
    scripted_server.add(reply(tool_call("bash", id="c1", command=attack)), text("done"))
    orch, _, _ = make_orchestrator(root, scripted_server.base_url, mode=Mode.PLAN, interactive=False)
    await orch.run_input("check")
    result = _results(scripted_server)["c1"]
    assert result["ok"] is False and "approval" in result["error"]
    assert not mark.exists()


@pytest.mark.parametrize("answer", [ApprovalDecision.NO, ApprovalDecision.YES])
async def test_auto_edit_write_to_git_config_asks_and_git_status_stays_harmless(
    world: tuple[Path, Path], scripted_server: ScriptedServer, answer: ApprovalDecision
) -> None:
    """The auto-edit variant: `write .git/config` with a fsmonitor, then `git status`. Writing asks (even in
    auto-edit); and even when the user says yes, the unasked `git status` runs with the fsmonitor off."""
    root, outside = world
    mark = outside / "pwned"
    config = (root / ".git" / "config").read_text() + f"[core]\n\tfsmonitor = touch {mark}; false\n"
    scripted_server.add(
        reply(tool_call("write", id="w1", path=".git/config", content=config)),
        reply(tool_call("bash", id="b1", command="git status")),
        text("done"),
    )
    # A refusal with a reason, so that the turn goes on to `git status`.
    said = ApprovalAnswer(answer, "not this") if answer is ApprovalDecision.NO else answer
    interaction = FakeInteraction([said])
    orch, _, _ = make_orchestrator(root, scripted_server.base_url, mode=Mode.AUTO_EDIT, interaction=interaction)
    before = snapshot(outside)
    await orch.run_input("fix the repo")
    [request] = [r for r in interaction.approval_requests if r.tool == "write"]
    assert any("inside .git/" in reason for reason in request.reasons)
    results = _results(scripted_server)
    assert results["w1"]["ok"] is (answer is ApprovalDecision.YES)
    assert results["b1"]["ok"] is True and results["b1"]["exit_code"] == 0
    assert not mark.exists() and snapshot(outside) == before


@pytest.mark.skipif(not detect().available, reason="without a sandbox the sub-agent's read-only commands ask too")
async def test_subagent_meets_the_same_chain(world: tuple[Path, Path], scripted_server: ScriptedServer) -> None:
    """The `task` sub-agent: its env attack is refused (it cannot ask), its read-only `git status` in a repository
    with a hostile fsmonitor runs with the hooks off, and its read outside the workspace shows nothing."""
    root, outside = world
    mark = outside / "pwned"
    git(root, "config", "core.fsmonitor", f"touch {mark}; false")
    scripted_server.add(
        reply(tool_call("task", id="t1", description="Check status", prompt="Run git status.")),
        reply(tool_call("bash", id="s1", command=_export_attack(mark))),
        reply(tool_call("bash", id="s2", command="git status")),
        reply(tool_call("bash", id="s3", command=f"cat {outside}/secret.txt")),
        text("status checked"),
        text("done"),
    )
    interaction = FakeInteraction()
    orch, _, _ = make_orchestrator(root, scripted_server.base_url, mode=Mode.AUTO_EDIT, interaction=interaction)
    await orch.run_input("check")
    sub = {m["tool_call_id"]: json.loads(m["content"]) for m in scripted_server.requests[4].body["messages"]
           if m["role"] == "tool"}  # fmt: skip
    assert sub["s1"]["ok"] is False
    assert sub["s2"]["ok"] is True and "On branch" in sub["s2"]["stdout"]
    # The sub-agent's bash runs confined (SPEC 13): the read outside runs unasked and the kernel refuses it.
    assert "the outside secret" not in json.dumps(sub["s3"])
    if detect().confines_unasked:
        assert sub["s3"]["ok"] is True and sub["s3"]["exit_code"] != 0 and "Permission denied" in sub["s3"]["stderr"]
    assert interaction.approval_requests == []
    assert not mark.exists()


async def test_coders_own_git_calls_run_with_the_hooks_off(
    world: tuple[Path, Path], scripted_server: ScriptedServer
) -> None:
    """The system prompt's `git status` and `/diff` run in the same repository: a hostile config runs nothing."""
    root, outside = world
    mark = outside / "pwned"
    git(root, "config", "core.fsmonitor", f"touch {mark}; false")
    git(root, "config", "diff.external", f"touch {mark}; true")
    (root / "notes.txt").write_text("changed\n")
    scripted_server.add(text("hello"))
    orch, log, _ = make_orchestrator(root, scripted_server.base_url, mode=Mode.DEFAULT)
    await orch.run_input("hi")
    await orch.run_input("/diff")
    diff = [event for event in log.events if isinstance(event, DiffShown)][-1]
    assert "notes.txt" in diff.text
    assert not mark.exists()
