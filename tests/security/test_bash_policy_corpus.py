"""SPEC 13 against a hostile corpus (data/bash_policy.tsv, one line a case): variables and git options that change
which program runs, writes under `.git/` and `.coder/`, each decided in plan, default and auto-edit
with the reason it must give; yolo allows every line (SPEC 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.modes import Mode
from engine.policy import PermissionPolicy
from engine.sandbox import SandboxSupport
from engine.tools.base import ToolKind

CORPUS = Path(__file__).parent / "data" / "bash_policy.tsv"
MODES = (Mode.PLAN, Mode.DEFAULT, Mode.AUTO_EDIT)
LANDLOCK = SandboxSupport("landlock", 7, seccomp=True)


def _cases() -> list[pytest.ParameterSet]:
    cases = []
    for number, line in enumerate(CORPUS.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        command, *decisions, reason = line.split("\t")
        assert len(decisions) == len(MODES), f"line {number}: expected 5 tab-separated fields"
        cases.append(pytest.param(command, decisions, reason, id=f"{number}:{command[:60]}"))
    return cases


def test_corpus_has_at_least_110_hostile_lines() -> None:
    hostile = [case for case in _cases() if case.values[2] != "-"]
    # The lines that read outside the workspace moved to data/confined_reads.tsv, and those that change the
    # environment otherwise than by a variable that changes which program runs to data/confined_env.tsv, where they
    # run confined (test_confined_reads_corpus, test_confined_env_corpus): the parser no longer decides them.
    assert len(hostile) >= 75


@pytest.mark.parametrize(("command", "decisions", "reason"), _cases())
def test_hostile_bash_line_decided(world: tuple[Path, Path], command: str, decisions: list[str], reason: str) -> None:
    root, outside = world
    line = command.replace("{out}", str(outside))
    for mode, expected in zip(MODES, decisions, strict=True):
        policy = PermissionPolicy(mode, workspace=root, sandbox=LANDLOCK)
        decision = policy.decide("bash", ToolKind.EXECUTE, {"command": line})
        assert decision.action.value == expected, f"{mode.value}: {decision}"
        if reason != "-":
            assert reason in "; ".join(decision.reasons), f"{mode.value}: {decision.reasons}"
    yolo = PermissionPolicy(Mode.YOLO, workspace=root, sandbox=LANDLOCK).decide(
        "bash", ToolKind.EXECUTE, {"command": line}
    )
    assert yolo.action.value == "allow" and yolo.sandbox is None
