"""Finding 1, for real: a workspace whose `.git/config` (or a file it includes) makes read-only git commands run
programs, and git commands that the policy lets run unasked. Each line of data/hostile_git.tsv really runs through
the policy and the bash tool in plan and default mode, in a temp git repository, with the sandbox and without
any; the marker file outside the workspace must not appear, and the command must still work."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.modes import Mode
from engine.policy import PermissionPolicy
from engine.sandbox import SandboxSupport, detect
from engine.tools.base import ToolContext, ToolKind
from engine.tools.bash import BashParams, BashTool
from engine.tools.guard import Workspace
from tests.security.conftest import git, snapshot

CORPUS = Path(__file__).parent / "data" / "hostile_git.tsv"


def _cases() -> list[pytest.ParameterSet]:
    cases = []
    for number, line in enumerate(CORPUS.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip() and not line.startswith("#"):
            key, value, command = line.split("\t")
            cases.append(pytest.param(key, value, command, id=f"{number}:{key}:{command}"))
    return cases


def _arm(root: Path, outside: Path, key: str, value: str) -> Path:
    """Writes the hostile setting; returns the marker it would create."""
    mark = outside / "pwned"
    hooks = outside / "hooks"
    hooks.mkdir(exist_ok=True)
    for hook in ("post-index-change", "reference-transaction", "post-checkout"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {mark}\n")
        (hooks / hook).chmod(0o755)
    include = root / "evil.cfg"
    include.write_text(f'[core]\n\tfsmonitor = touch {mark}; false\n[diff "evil"]\n\ttextconv = touch {mark}; cat\n')
    (root / ".gitattributes").write_text("* diff=evil filter=evil\n")
    (root / "notes.txt").write_text("notes\nchanged\n")
    # An unchanged file with a new time: git must read it (through the clean filter) and then rewrites the index
    # (running the post-index-change hook), however fast the machine is.
    unchanged = root / "src" / "main.py"
    later = unchanged.stat().st_mtime + 10
    os.utime(unchanged, (later, later))
    git(root, "update-ref", "refs/remotes/origin/main", "HEAD")
    git(root, "config", key, value.format(mark=mark, hooks=hooks, include=include))
    assert not mark.exists()
    return mark


@pytest.mark.parametrize(("key", "value", "command"), _cases())
@pytest.mark.parametrize(("mode", "sandboxed"), [(Mode.PLAN, True), (Mode.DEFAULT, True), (Mode.DEFAULT, False)])
async def test_hostile_repository_config_runs_nothing(
    world: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, mode: Mode, sandboxed: bool, key: str, value: str,
    command: str,
) -> None:
    """Sandboxed (where the kernel has Landlock) and, to show the environment alone holds, with no sandbox at all:
    then the read-only command asks first, and approved it runs the same harmless way."""
    support = detect() if sandboxed else SandboxSupport("none")
    monkeypatch.setattr("engine.tools.bash.detect", lambda: support)
    root, outside = world
    mark = _arm(root, outside, key, value)
    before = snapshot(outside)
    config_before = (root / ".git" / "config").read_bytes()
    policy = PermissionPolicy(mode, workspace=root, sandbox=support)
    decision = policy.decide("bash", ToolKind.EXECUTE, {"command": command})
    assert decision.action.value == ("allow" if support.available else "ask"), decision
    context = ToolContext(workspace=Workspace(root), sandbox=decision.sandbox)
    output = await BashTool().run(BashParams(command=command), context)
    assert not mark.exists(), output.data
    assert snapshot(outside) == before
    assert (root / ".git" / "config").read_bytes() == config_before
    assert output.data["exit_code"] == 0, output.data


@pytest.mark.parametrize(("key", "value", "command"), _cases())
async def test_hostile_line_does_run_its_program_without_the_defences(
    world: tuple[Path, Path], key: str, value: str, command: str
) -> None:
    """The corpus is real: unsandboxed and with the parent's environment (yolo), every line runs its program."""
    root, outside = world
    mark = _arm(root, outside, key, value)
    await BashTool().run(BashParams(command=command), ToolContext(workspace=Workspace(root)))
    assert mark.exists()
