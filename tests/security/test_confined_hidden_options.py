"""SPEC 13: an argument known only at run time (`$X`, what `xargs` appends) may turn out to be any option of a
read-only program: `-delete` for find, `-o file` for sort, `-i` for sed, `-exec` for find, `--pre` for rg. The parser
once kept such lines out of the read-only class; the kernel confines what the hidden option makes the program do
instead, so they run unasked. Each line runs as the policy lets it, in the hostile world of conftest.py: nothing in
the workspace or outside changes, and nothing secret shows. Without the kernel each line does change something (the
attack is real)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.modes import Mode
from engine.policy import Action, PermissionPolicy
from engine.sandbox import Confinement, SandboxGrant, SandboxSupport, detect
from engine.tools.base import ToolKind
from engine.tools.bash import run_command
from tests.security.conftest import SECRET, snapshot

SUPPORT = detect()
pytestmark = pytest.mark.skipif(not SUPPORT.confines_unasked, reason=f"this machine cannot confine reads ({SUPPORT})")
# `{out}` is the folder outside the workspace.
LINES = (
    "X=-delete; find . -name '*.txt' $X",
    "O='-o notes.txt'; sort $O README.md",
    "echo -i | xargs sed s/TODO/DONE/ notes.txt",
    "E='-exec touch {out}/pwned ;'; find . -maxdepth 0 $E",
    "P=--pre=./evil.sh; rg $P TODO notes.txt",
    "X=--output={out}/pwned; git log $X",
)


def _arm(root: Path, outside: Path) -> str:
    """A program of the model's in the workspace, for rg's `--pre`: it shows the outside secret and writes outside."""
    evil = root / "evil.sh"
    evil.write_text(f'#!/bin/sh\necho "TODO $(cat {outside}/secret.txt)"\ntouch {outside}/pwned\n')
    evil.chmod(0o755)
    return str(outside)


def _world(root: Path, outside: Path) -> tuple[dict[str, tuple[int, bytes]], ...]:
    return snapshot(outside), {k: v for k, v in snapshot(root).items() if not k.startswith(".git/")}


@pytest.mark.parametrize("command", LINES)
async def test_hidden_option_runs_unasked_and_confined(world: tuple[Path, Path], command: str) -> None:
    root, outside = world
    line = command.replace("{out}", _arm(root, outside))
    before = _world(root, outside)
    decision = PermissionPolicy(Mode.DEFAULT, workspace=root, sandbox=SUPPORT).decide(
        "bash", ToolKind.EXECUTE, {"command": line}
    )
    assert decision.action is Action.ALLOW and decision.sandbox is not None, decision
    assert decision.sandbox.confinement is Confinement.UNASKED
    result = await run_command(line, root, 20, 100_000, sandbox=decision.sandbox)
    assert SECRET.strip() not in result.stdout + result.stderr
    assert _world(root, outside) == before, result


@pytest.mark.parametrize("command", LINES)
async def test_without_the_kernel_the_hidden_option_changes_something(
    world: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    monkeypatch.setattr("engine.tools.bash.detect", lambda: SandboxSupport("none"))
    root, outside = world
    line = command.replace("{out}", _arm(root, outside))
    before = _world(root, outside)
    await run_command(line, root, 20, 100_000, sandbox=SandboxGrant(Confinement.UNASKED, network=False))
    assert _world(root, outside) != before
