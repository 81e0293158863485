"""SPEC 13: lines that change the environment git runs with (`unset GIT_CONFIG_COUNT`, `env -i`, `exec -c`, `set -a`,
`for GIT_CONFIG_COUNT in ...`) once asked because a parser said so; now they run unasked, and the kernel holds
(data/confined_env.tsv, one line a case). In a repository whose config makes git run a program that writes a marker
outside the workspace, each line runs as the policy lets it, unasked: the marker never appears and nothing outside
changes. The lines marked `runs` do start that program when only the environment stands (no kernel), so for them
the confinement is what holds."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.modes import Mode
from engine.policy import Action, PermissionPolicy
from engine.sandbox import Confinement, SandboxGrant, SandboxSupport, detect
from engine.tools.base import ToolKind
from engine.tools.bash import run_command
from tests.security.conftest import git, snapshot

CORPUS = Path(__file__).parent / "data" / "confined_env.tsv"
SUPPORT = detect()
pytestmark = pytest.mark.skipif(not SUPPORT.confines_unasked, reason=f"this machine cannot confine reads ({SUPPORT})")


def _cases(only_running: bool = False) -> list[pytest.ParameterSet]:
    cases = []
    for number, line in enumerate(CORPUS.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        command, without_kernel = line.split("\t")
        if without_kernel == "runs" or not only_running:
            cases.append(pytest.param(command, id=f"{number}:{command[:60]}"))
    return cases


def _arm(root: Path, outside: Path) -> Path:
    """A repository config whose fsmonitor, hooks and external diff each create the marker; returns the marker."""
    mark = outside / "pwned"
    hooks = outside / "hooks"
    hooks.mkdir()
    for hook in ("post-index-change", "reference-transaction"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {mark}\n")
        (hooks / hook).chmod(0o755)
    git(root, "config", "core.fsmonitor", f"touch {mark}; false")
    git(root, "config", "core.hooksPath", str(hooks))
    git(root, "config", "diff.external", f"touch {mark}; true")
    (root / "notes.txt").write_text("notes\nchanged\n")
    later = (root / "src" / "main.py").stat().st_mtime + 10
    os.utime(root / "src" / "main.py", (later, later))  # git must refresh the index, and run the hook after it
    return mark


def test_corpus_keeps_the_moved_cases() -> None:
    assert len(_cases()) >= 35 and len(_cases(only_running=True)) >= 10


@pytest.mark.parametrize("command", _cases())
async def test_environment_change_runs_unasked_and_confined(world: tuple[Path, Path], command: str) -> None:
    root, outside = world
    mark = _arm(root, outside)
    before, config = snapshot(outside), (root / ".git" / "config").read_bytes()
    decision = PermissionPolicy(Mode.DEFAULT, workspace=root, sandbox=SUPPORT).decide(
        "bash", ToolKind.EXECUTE, {"command": command}
    )
    assert decision.action is Action.ALLOW and decision.sandbox is not None, decision
    assert decision.sandbox.confinement is Confinement.UNASKED
    result = await run_command(command, root, 20, 100_000, sandbox=decision.sandbox)
    assert not mark.exists(), result
    assert snapshot(outside) == before
    assert (root / ".git" / "config").read_bytes() == config


@pytest.mark.parametrize("command", _cases(only_running=True))
async def test_without_the_kernel_the_line_runs_the_repositorys_program(
    world: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """The corpus is real: with the unasked environment alone (no Landlock, no seccomp) the line starts the program
    the repository's config names."""
    monkeypatch.setattr("engine.tools.bash.detect", lambda: SandboxSupport("none"))
    root, outside = world
    mark = _arm(root, outside)
    await run_command(command, root, 20, 100_000, sandbox=SandboxGrant(Confinement.UNASKED, network=False))
    assert mark.exists()
