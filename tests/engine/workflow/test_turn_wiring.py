"""Issue 6 in a real turn: compaction, loop detection, todos and auto-verify through the orchestrator and the
scripted server. These need the lead's wiring (events, steps, tools registered); each skip says what is missing.

Wiring assumed (see the issue-6 report): events ``ContextCompacted(tokens_before, tokens_after, summary)``,
``LoopDetected(kind, what)``, ``VerificationStarted(command, attempt)``, ``VerificationFinished(command, outcome,
exit_code, reason, output_tail)``; todoread/todowrite registered; the steps calling engine.context.compaction,
engine.workflow.loop_detection, engine.workflow.complex_task and engine.workflow.verify.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import events
from engine.command_results import ContextSummarised
from engine.context.compaction import SUMMARY_HEADER, SUMMARY_INSTRUCTIONS
from engine.context.system_prompt import build_system_prompt, probe_environment
from engine.context.tokens import TokenCounter
from engine.messages import Message
from engine.modes import Mode
from tests.support.fakes import make_orchestrator
from tests.support.scenario import ReplyLike, reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

SUMMARY = "## Goal\nRead every part of big.txt.\n## Task state\nParts 1-3 read."


class TurnScript:
    """Turn replies in order; summarisation requests (recognised by their instructions) get the summary."""

    def __init__(self, *replies: ReplyLike) -> None:
        self.replies: deque[ReplyLike] = deque(replies)
        self.summaries = 0

    def __call__(self, body: dict[str, Any]) -> ReplyLike:
        if body["messages"][0]["content"] == SUMMARY_INSTRUCTIONS:
            self.summaries += 1
            return text(SUMMARY)
        return self.replies.popleft() if self.replies else text("All done.")


@pytest.fixture
def server_with(request: pytest.FixtureRequest) -> Iterator[Any]:
    servers: list[ScriptedServer] = []

    def start(script: TurnScript) -> ScriptedServer:
        server = ScriptedServer(fallback=script).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def turn_requests(server: ScriptedServer) -> list[dict[str, Any]]:
    return [r.body for r in server.requests if r.body["messages"][0]["content"] != SUMMARY_INSTRUCTIONS]



async def test_long_scripted_session_compacts_itself_and_goes_on(tmp_path: Path, server_with: Any) -> None:
    part = "".join(f"line {n}: the quick brown fox number {n} jumps over lazy dog {n * 7}\n" for n in range(60))
    (tmp_path / "big.txt").write_text(part * 6)
    probe, _, _ = make_orchestrator(tmp_path, "http://127.0.0.1:9/v1")
    counter = TokenCounter("scripted-model")
    system = build_system_prompt(Mode.DEFAULT, probe_environment(tmp_path))
    base = counter.total([], system=system, tools=probe.session.tools)
    read_tokens = counter.count_text(part)
    window = int((base + 3.5 * read_tokens) / 0.7)
    script = TurnScript(*[reply(tool_call("read", path="big.txt", offset=1 + 60 * i, limit=60)) for i in range(6)],
                        text("I have read all of big.txt."))
    server = server_with(script)
    orch, log, _ = make_orchestrator(tmp_path, server.base_url, context_window=max(window, 1024))
    outcome = await orch.run_input("read big.txt part by part")
    assert outcome.ok and outcome.text == "I have read all of big.txt."
    compacted = log.of(events.ContextCompacted)
    assert compacted and script.summaries == len(compacted)
    assert all(e.tokens_after < e.tokens_before for e in compacted)
    first = orch.session.messages[0]
    assert first.role == "user" and (first.content or "").startswith(SUMMARY_HEADER)
    last_request = turn_requests(server)[-1]["messages"]
    assert any(SUMMARY_HEADER in (m.get("content") or "") for m in last_request)
    # The history sent stays valid: every tool result follows the assistant message that called it.
    calls: set[str] = set()
    for message in last_request:
        if message["role"] == "tool":
            assert message["tool_call_id"] in calls
        else:
            calls = {c["id"] for c in message.get("tool_calls") or []}



async def test_slash_compact_forces_a_compaction_and_shows_the_summary(tmp_path: Path, server_with: Any) -> None:
    long_answer = "A long explanation of the parser, the checker and the printer. " * 40
    server = server_with(TurnScript(text(long_answer), text(long_answer), text("Third answer.")))
    orch, log, _ = make_orchestrator(tmp_path, server.base_url)
    await orch.run_input("first question")
    await orch.run_input("second question")
    await orch.run_input("third question")
    outcome = await orch.run_input("/compact")
    assert outcome.ok
    result = log.of(ContextSummarised)[-1]
    assert SUMMARY in result.text and SUMMARY in result.summary
    assert log.of(events.ContextCompacted)
    assert (orch.session.messages[0].content or "").startswith(SUMMARY_HEADER)



async def test_repeated_tool_call_stops_the_turn(tmp_path: Path, server_with: Any) -> None:
    server = server_with(TurnScript(*[reply(tool_call("list", path=".")) for _ in range(8)]))
    orch, log, _ = make_orchestrator(tmp_path, server.base_url)
    outcome = await orch.run_input("list the files")
    assert outcome.reason == "loop_detected"
    (found,) = log.of(events.LoopDetected)
    assert found.kind == "repeated_tool_call" and 'list {"path":"."}' in found.what
    assert len(turn_requests(server)) == 5
    assert log.of(events.TurnFinished)[-1].reason == "loop_detected"
    # Every call got a result: the history stays valid for the next turn.
    assert orch.session.messages[-1].role == "tool"



async def test_chanting_stream_stops_the_turn(tmp_path: Path, server_with: Any) -> None:
    server = server_with(TurnScript(text("I will look at the file once more now. " * 40)))
    orch, log, _ = make_orchestrator(tmp_path, server.base_url)
    outcome = await orch.run_input("what is in the file?")
    assert outcome.reason == "loop_detected"
    (found,) = log.of(events.LoopDetected)
    assert found.kind == "repeated_text" and "look at the file once more" in found.what



async def test_complex_request_starts_with_a_todo_list(tmp_path: Path, server_with: Any) -> None:
    todos = [{"id": "1", "content": "add a greeting", "status": "in_progress"},
             {"id": "2", "content": "add a test", "status": "pending"}]
    server = server_with(TurnScript(reply(tool_call("todowrite", todos=todos)), text("Planned.")))
    orch, log, _ = make_orchestrator(tmp_path, server.base_url)
    await orch.run_input("1. add a greeting to hello.py 2. add a test for it")
    first = turn_requests(server)[0]
    sent = "\n".join(m.get("content") or "" for m in first["messages"] if m["role"] == "user")
    assert "call `todowrite`" in sent and "1. add a greeting to hello.py" in sent
    assert {"todoread", "todowrite"} <= {t["function"]["name"] for t in first["tools"]}
    (changed,) = log.of(events.TodosChanged)
    assert [t.content for t in changed.todos] == ["add a greeting", "add a test"]
    assert [t.id for t in orch.tool_context.todos.items] == ["1", "2"]



async def test_no_todo_instruction_while_a_todo_is_unfinished(tmp_path: Path, server_with: Any) -> None:
    from engine.events import TodoItem

    server = server_with(TurnScript(text("On it.")))
    orch, _, _ = make_orchestrator(tmp_path, server.base_url)
    orch.tool_context.todos.replace([TodoItem("1", "earlier work", "in_progress")])
    await orch.run_input("1. fix the parser 2. add a test")
    sent = json.dumps(turn_requests(server)[0]["messages"])
    assert "todowrite" not in sent



async def test_todowrite_is_allowed_in_plan_mode(tmp_path: Path, server_with: Any) -> None:
    server = server_with(TurnScript(reply(tool_call("todowrite", todos=[{"id": "1", "content": "plan it"}]))))
    orch, _, interaction = make_orchestrator(tmp_path, server.base_url, mode=Mode.PLAN)
    await orch.run_input("plan the work")
    assert interaction.approval_requests == []
    assert [t.content for t in orch.tool_context.todos.items] == ["plan it"]


def python_project(root: Path, body: str) -> None:
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "calc.py").write_text(body)
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(
        "import sys, pathlib\nsys.path.insert(0, str(pathlib.Path(__file__).parents[1]))\nfrom calc import double\n\n"
        "def test_double():\n    assert double(2) == 4\n"
    )


BROKEN = "def double(x):\n    return x + x + 1\n"
FIXED = "def double(x):\n    return x + x\n"



async def test_auto_edit_verifies_and_a_failure_is_fixed_and_verified_again(
    tmp_path: Path, server_with: Any, plugin_free_pytest: dict[str, list[str]]
) -> None:
    python_project(tmp_path, "def double(x):\n    return 0\n")
    server = server_with(TurnScript(
        reply(tool_call("write", path="calc.py", content=BROKEN)), text("Done."),
        reply(tool_call("write", path="calc.py", content=FIXED)), text("Fixed."),
    ))
    orch, log, _ = make_orchestrator(tmp_path, server.base_url, mode=Mode.AUTO_EDIT, bash=plugin_free_pytest)
    outcome = await orch.run_input("make double() correct")
    assert outcome.ok and outcome.text == "Fixed."
    finished = log.of(events.VerificationFinished)
    assert [(f.command, f.outcome) for f in finished] == [("pytest -q", "fixable"), ("pytest -q", "passed")]
    fix_requests = [m for m in turn_requests(server)[2]["messages"] if m["role"] == "user"]
    assert "Auto-verify: `pytest -q` failed (exit 1)" in fix_requests[-1]["content"]
    assert "assert 3 == 4" in fix_requests[-1]["content"] or "assert 5 == 4" in fix_requests[-1]["content"]



async def test_what_a_verification_run_changes_is_undone_with_the_turn(
    tmp_path: Path, server_with: Any, plugin_free_pytest: dict[str, list[str]]
) -> None:
    """The test run goes through the same capture as any command: what it writes (a report in the folder where
    coverage keeps its own, one of those it may write) is the turn's change, so /undo removes it with the edit."""
    python_project(tmp_path, BROKEN)
    (tmp_path / "htmlcov").mkdir()
    (tmp_path / "tests" / "conftest.py").write_text(
        "import pathlib\n\ndef pytest_sessionfinish(session, exitstatus):\n"
        "    pathlib.Path(__file__).parents[1].joinpath('htmlcov', 'report.txt').write_text(f'exit {exitstatus}')\n"
    )
    server = server_with(TurnScript(reply(tool_call("write", path="calc.py", content=FIXED)), text("Done.")))
    orch, log, _ = make_orchestrator(tmp_path, server.base_url, mode=Mode.AUTO_EDIT, bash=plugin_free_pytest)
    await orch.run_input("make double() correct")
    assert [f.outcome for f in log.of(events.VerificationFinished)] == ["passed"]
    assert (tmp_path / "htmlcov" / "report.txt").read_text() == "exit 0"
    result = orch.undo.undo_last_turn()
    assert result.applied, result.summary()
    assert "htmlcov/report.txt" in result.deleted
    assert not (tmp_path / "htmlcov" / "report.txt").exists() and (tmp_path / "calc.py").read_text() == BROKEN


async def test_a_turn_whose_verification_still_fails_after_its_retries_ends_as_a_failure(
    tmp_path: Path, server_with: Any, plugin_free_pytest: dict[str, list[str]]
) -> None:
    python_project(tmp_path, "def double(x):\n    return 0\n")
    server = server_with(TurnScript(
        *[step for _ in range(3) for step in (reply(tool_call("write", path="calc.py", content=BROKEN)), text("Done."))]
    ))
    orch, log, _ = make_orchestrator(tmp_path, server.base_url, mode=Mode.AUTO_EDIT, bash=plugin_free_pytest)
    outcome = await orch.run_input("make double() correct")
    assert not outcome.ok and outcome.reason == "verify_failed"
    assert outcome.error == "auto-verify: `pytest -q` still fails after 2 retries"
    assert [f.outcome for f in log.of(events.VerificationFinished)] == ["fixable"] * 3
    assert log.of(events.TurnFinished)[-1].reason == "verify_failed"


async def test_default_mode_verifies_only_when_asked(
    tmp_path: Path, server_with: Any, plugin_free_pytest: dict[str, list[str]]
) -> None:
    python_project(tmp_path, BROKEN)
    server = server_with(TurnScript(
        reply(tool_call("write", path="calc.py", content=FIXED)), text("Done."),
        reply(tool_call("write", path="calc.py", content=FIXED + "\n")), text("Done again."),
    ))
    orch, log, _ = make_orchestrator(tmp_path, server.base_url, bash=plugin_free_pytest)
    await orch.run_input("fix double()")
    assert log.of(events.VerificationStarted) == []
    await orch.run_input("fix double() and run the tests")
    assert [e.command for e in log.of(events.VerificationStarted)] == ["pytest -q"]



async def test_no_runnable_command_says_auto_verify_not_run(tmp_path: Path, server_with: Any) -> None:
    server = server_with(TurnScript(reply(tool_call("write", path="main.c", content="int main(){}\n")), text("Ok.")))
    orch, log, _ = make_orchestrator(tmp_path, server.base_url, mode=Mode.AUTO_EDIT)
    await orch.run_input("write main.c")
    notices = [n.text for n in log.of(events.Notice)]
    assert any(n.startswith("auto-verify not run: no test setup found") for n in notices)
    assert log.of(events.VerificationStarted) == []



async def test_environment_failure_warns_and_stops_verifying(
    tmp_path: Path, server_with: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))
    server = server_with(TurnScript(reply(tool_call("write", path="lib.rs", content="fn main() {}\n")), text("Ok.")))
    orch, log, _ = make_orchestrator(
        tmp_path, server.base_url, mode=Mode.AUTO_EDIT, workflow={"verify_commands": ["cargo test"]}
    )
    outcome = await orch.run_input("write lib.rs")
    assert outcome.ok
    (finished,) = log.of(events.VerificationFinished)
    assert finished.outcome == "environment" and finished.exit_code == 127
    assert any(n.level == "warning" and "cargo test" in n.text for n in log.of(events.Notice))
    assert len(turn_requests(server)) == 2



async def test_context_tokens_are_counted_before_the_first_answer(tmp_path: Path, server_with: Any) -> None:
    server = server_with(TurnScript(text("Hello.")))
    orch, log, _ = make_orchestrator(tmp_path, server.base_url)
    await orch.run_input("hi")
    usage = log.of(events.UsageUpdated)
    assert usage and usage[0].context_tokens > TokenCounter("scripted-model").count_message(Message.user("hi"))
    assert usage[0].context_window == orch.context_window


async def test_auto_verify_does_not_run_where_the_system_cannot_confine_it(
    tmp_path: Path, server_with: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SPEC 8: the tests may be the model's code; where the kernel cannot confine them they do not run (but in
    yolo), and the user is told why."""
    from engine.sandbox import SandboxSupport

    python_project(tmp_path, BROKEN)
    server = server_with(TurnScript(reply(tool_call("write", path="calc.py", content=FIXED)), text("Done.")))
    orch, log, _ = make_orchestrator(tmp_path, server.base_url, mode=Mode.AUTO_EDIT)
    orch.policy.sandbox = SandboxSupport("landlock", 3, seccomp=False)
    await orch.run_input("fix double()")
    assert log.of(events.VerificationStarted) == []
    notices = [n.text for n in log.of(events.Notice)]
    assert any("auto-verify not run: this system cannot confine the test run" in n for n in notices), notices
