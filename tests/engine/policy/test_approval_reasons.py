"""Every approval reason names the command that causes it (SPEC 5, decision of 2026-12-07): the corpus in
data/approval_reasons.tsv holds, one line a case, a command line and the exact reasons the dialog lists for it, in
lists, pipelines, subshells, `{ }` groups, loops and here-documents, with redirections at every position."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.modes import Mode
from engine.policy import PermissionPolicy
from engine.sandbox import SandboxSupport
from engine.tools.base import ToolKind

CORPUS = Path(__file__).parent / "data" / "approval_reasons.tsv"
LANDLOCK = SandboxSupport("landlock", 7, seccomp=True)


def _corpus() -> list[pytest.ParameterSet]:
    cases = []
    for number, line in enumerate(CORPUS.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        command, *reasons = line.split("\t")
        assert reasons, f"line {number}: a command and at least one reason (or `-`), a tab apart"
        expected = () if reasons == ["-"] else tuple(f"bash: {reason}" for reason in reasons)
        cases.append(pytest.param(command.replace("⏎", "\n"), expected, id=f"{number}:{command[:60]}"))
    return cases


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("workspace")
    (root / "src").mkdir()
    for name in ("src/a.py", "blob.bin", "out.txt", "notes.txt"):
        (root / name).write_text("x\n")
    return root


@pytest.mark.parametrize(("command", "expected"), _corpus())
def test_each_reason_names_the_command_that_causes_it(
    workspace: Path, command: str, expected: tuple[str, ...]
) -> None:
    policy = PermissionPolicy(Mode.DEFAULT, workspace=workspace, sandbox=LANDLOCK)
    decision = policy.decide("bash", ToolKind.EXECUTE, {"command": command})
    assert decision.reasons == expected
    assert decision.action.value == ("ask" if expected else "allow")
