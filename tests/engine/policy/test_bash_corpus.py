"""The bash corpus: every line of data/bash_commands.tsv decided in every mode, with its risk codes."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.modes import Mode
from engine.policy import RISK_CODES, PermissionPolicy, analyse
from engine.tools.base import ToolKind

CORPUS = Path(__file__).parent / "data" / "bash_commands.tsv"
CORPUS_RULES = {
    "npm test*": "allow",
    "terraform destroy*": "deny",
    "make deploy *": "deny",
    "kubectl delete *": "deny",
}
MODES = (Mode.PLAN, Mode.DEFAULT, Mode.AUTO_EDIT, Mode.YOLO)


def _corpus() -> list[pytest.ParameterSet]:
    cases = []
    for number, line in enumerate(CORPUS.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        command, *decisions, codes = line.split("\t")
        assert len(decisions) == len(MODES), f"line {number}: expected 6 tab-separated fields"
        cases.append(pytest.param(command.replace("⏎", "\n"), decisions, codes, id=f"{number}:{command}"))
    return cases


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("workspace")
    (root / "README.md").write_text("# project\n")
    (root / "notes.txt").write_text("notes\n")
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("print('hi')\n")
    return root


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`~` in a command is a home folder of the test's own, never the developer's."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


def test_corpus_has_at_least_200_commands() -> None:
    assert len(_corpus()) >= 200


def test_corpus_covers_every_risk_code() -> None:
    covered = {code for case in _corpus() for code in str(case.values[2]).split(",") if code != "-"}
    assert covered == set(RISK_CODES)


@pytest.mark.parametrize(("command", "decisions", "codes"), _corpus())
def test_bash_command_decided_per_mode(workspace: Path, command: str, decisions: list[str], codes: str) -> None:
    found = ",".join(sorted({risk.code for risk in analyse(command, workspace).risks})) or "-"
    assert found == codes, f"risk codes of {command!r}"
    for mode, expected in zip(MODES, decisions, strict=True):
        policy = PermissionPolicy(mode, bash_rules=CORPUS_RULES, workspace=workspace)
        decision = policy.decide("bash", ToolKind.EXECUTE, {"command": command})
        assert decision.action.value == expected, f"{mode.value}: {decision}"
