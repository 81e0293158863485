"""The README's test command (the second line of its first block) is what CI runs: `.ci/run`'s steps, one per line,
are the command's `&&`-joined parts, less the model settings CI points nowhere."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_steps() -> list[list[str]]:
    block = re.search(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert block is not None, "README.md has no ```bash block"
    command = block.group(1).splitlines()[1]
    return [shlex.split(part) for part in command.split(" && ")]


def ci_steps() -> list[list[str]]:
    steps = []
    for line in (ROOT / ".ci" / "run").read_text().splitlines():
        if not line.strip() or line.startswith(("#", "set ", "cd ")):
            continue
        words = shlex.split(line)
        while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
            words.pop(0)
        steps.append(words)
    return steps


def test_the_readme_test_command_is_what_ci_runs() -> None:
    assert readme_steps() == ci_steps()


def test_ci_checks_the_import_contracts_then_runs_the_suite_in_parallel() -> None:
    commands = [step[:3] if step[0] == "python" else step[:1] for step in ci_steps()]
    assert commands.index(["lint-imports"]) < commands.index(["python", "-m", "pytest"])
    pytest_step = next(step for step in ci_steps() if step[:3] == ["python", "-m", "pytest"])
    assert "-n" in pytest_step
