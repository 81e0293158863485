"""``/review`` (SPEC 27): the model reviews a change read-only (plan mode's rules for that turn, whatever the mode),
with the built-in review prompt and the diff; its ``path:line:`` findings come back as a typed result; outside a
repository or with nothing to review it says why and asks the model nothing."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from engine.command_results import CommandFailed, ReviewFindings
from engine.events import ModeChanged
from engine.modes import Mode
from tests.support.fakes import make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

ANSWER = """## Findings
- src/calc.py:2: [high] divides by zero when b is 0; check b first
- `src/calc.py:5`: [low] the new helper has no test
- https://example.com:443: not a file, not a finding
## Summary
One real bug."""


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(repo), "PATH": "/usr/bin:/bin"})


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    (path / "src").mkdir(parents=True)
    (path / "src" / "calc.py").write_text("def div(a, b):\n    return a * b\n")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", ".")
    git(path, "commit", "-q", "-m", "first")
    return path


async def test_uncommitted_changes_are_reviewed_read_only_and_the_findings_listed(
    repo: Path, scripted_server: ScriptedServer
) -> None:
    (repo / "src" / "calc.py").write_text("def div(a, b):\n    return a / b\n\n\ndef twice(x):\n    return 2 * x\n")
    (repo / "notes.md").write_text("a new file\n")
    scripted_server.add(
        reply(tool_call("write", path="src/calc.py", content="fixed\n")),  # a review that tries to fix: refused
        reply(text(ANSWER)),
    )
    orch, log, interaction = make_orchestrator(repo, scripted_server.base_url, mode=Mode.YOLO)
    outcome = await orch.run_input("/review")
    assert outcome.ok
    request = scripted_server.requests[0].body["messages"][-1]["content"]
    assert request.startswith("/review: review the uncommitted changes")
    assert "Correctness" in request and "+    return a / b" in request and "+a new file" in request
    assert (repo / "src" / "calc.py").read_text().startswith("def div(a, b):\n    return a / b")  # not written
    [finding_result] = log.of(ReviewFindings)
    assert finding_result.findings == (
        {"path": "src/calc.py", "line": 2, "text": "[high] divides by zero when b is 0; check b first"},
        {"path": "src/calc.py", "line": 5, "text": "[low] the new helper has no test"},
    )
    assert [event.mode for event in log.of(ModeChanged)] == [Mode.PLAN, Mode.YOLO]
    assert orch.mode is Mode.YOLO and interaction.approval_requests == []


async def test_a_branch_is_reviewed_against_where_it_left(repo: Path, scripted_server: ScriptedServer) -> None:
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "src" / "calc.py").write_text("def div(a, b):\n    return a // b\n")
    git(repo, "commit", "-q", "-am", "integer division")
    scripted_server.add(reply(text("## Findings\nNothing worth changing.\n## Summary\nFine.")))
    orch, log, _ = make_orchestrator(repo, scripted_server.base_url)
    assert (await orch.run_input("/review main")).ok
    request = scripted_server.requests[0].body["messages"][-1]["content"]
    assert "what this branch changed since main" in request and "+    return a // b" in request
    assert log.of(ReviewFindings)[-1].findings == ()


async def test_outside_a_repository_or_with_nothing_to_review_nothing_is_asked(
    tmp_path: Path, repo: Path, scripted_server: ScriptedServer
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    orch, log, _ = make_orchestrator(plain, scripted_server.base_url)
    await orch.run_input("/review")
    assert "not in a git repository" in log.of(CommandFailed)[-1].text
    orch, log, _ = make_orchestrator(repo, scripted_server.base_url)
    await orch.run_input("/review")
    assert "nothing to review" in log.of(CommandFailed)[-1].text
    await orch.run_input("/review no-such-branch")
    assert not log.of(CommandFailed)[-1].ok
    assert scripted_server.requests == []
