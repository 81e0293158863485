"""Compaction keeps the goal (SPEC 10, 27): whatever the model's summary says, the next request holds the user's
original request and every open todo verbatim, through any number of compactions; ``/compact <focus>`` reaches
the summariser; a ``PreCompact`` hook gets Claude Code's input before the model is asked; the transcript's event
says what was kept."""

from __future__ import annotations

import json
import sys
from collections import deque
from pathlib import Path
from typing import Any

from engine import events
from engine.context.compaction import SUMMARY_HEADER, SUMMARY_INSTRUCTIONS
from engine.context.system_prompt import build_system_prompt, probe_environment
from engine.context.tokens import TokenCounter
from engine.modes import Mode
from tests.support.fakes import make_orchestrator
from tests.support.scenario import ReplyLike, reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

GOAL = "Migrate the parser in src/parse.py to the new AST module; keep parse() and its signature exactly as they are."
TODOS = [
    {"id": "1", "content": "read src/parse.py", "status": "completed"},
    {"id": "2", "content": "port the expression rules to ast_nodes", "status": "in_progress"},
    {"id": "3", "content": "run the parser tests and fix what fails", "status": "pending"},
]
# A summary that forgets everything: the goal and the todos must survive without the model's help.
CARELESS_SUMMARY = "## Goal\nSomething about code.\n## Task state\nWorking on it."


class Script:
    """Turn replies in order; a summarisation request (recognised by its instructions) gets the careless summary."""

    def __init__(self, *replies: ReplyLike) -> None:
        self.replies: deque[ReplyLike] = deque(replies)
        self.summary_requests: list[dict[str, Any]] = []
        self.answered = 0

    def __call__(self, body: dict[str, Any]) -> ReplyLike:
        if body["messages"][0]["content"].startswith(SUMMARY_INSTRUCTIONS):
            self.summary_requests.append(body)
            return text(CARELESS_SUMMARY)
        if self.replies:
            return self.replies.popleft()
        self.answered += 1  # words that do not repeat: a chant would stop the turn (loop detection)
        return text(" ".join(f"rule{self.answered}-{i} ported" for i in range(60)))


def turn_requests(server: ScriptedServer) -> list[list[dict[str, Any]]]:
    return [r.body["messages"] for r in server.requests
            if not r.body["messages"][0]["content"].startswith(SUMMARY_INSTRUCTIONS)]


def small_window(workspace: Path, spare: int) -> int:
    probe, _, _ = make_orchestrator(workspace, "http://127.0.0.1:9/v1")
    base = TokenCounter("scripted-model").total(
        [], system=build_system_prompt(Mode.DEFAULT, probe_environment(workspace)), tools=probe.session.tools)
    return max(int((base + spare) / 0.7), 1024)


async def test_sixty_exchanges_keep_the_first_request_and_the_open_todos(tmp_path: Path) -> None:
    script = Script(reply(tool_call("todowrite", todos=TODOS)), text("Plan written."))
    with ScriptedServer(fallback=script) as server:
        orch, log, _ = make_orchestrator(tmp_path, server.base_url, context_window=small_window(tmp_path, 3000))
        assert (await orch.run_input(GOAL)).ok
        for n in range(2, 61):
            assert (await orch.run_input(f"exchange {n}: go on with the port")).ok
        compacted = log.of(events.ContextCompacted)
        assert len(compacted) >= 3  # the goal survived summaries of summaries
        assert all(event.kept == ("the original request", "2 open todos") for event in compacted)
        last = turn_requests(server)[-1]
        sent = "\n".join(message.get("content") or "" for message in last)
        assert SUMMARY_HEADER in sent and "exchange 60" in sent
        assert GOAL in sent
        for todo in TODOS[1:]:
            assert todo["content"] in sent
        assert "read src/parse.py" not in sent.split(SUMMARY_HEADER, 1)[1].split("</summary>", 1)[1]


async def test_compact_with_instructions_focuses_the_summary_and_runs_the_pre_compact_hook(tmp_path: Path) -> None:
    seen = tmp_path / "hook-input.json"
    hook = f"{sys.executable} -c \"import sys, pathlib; pathlib.Path({str(seen)!r}).write_text(sys.stdin.read())\""
    hooks = {"PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": hook}]}]}
    script = Script()
    with ScriptedServer(fallback=script) as server:
        orch, log, _ = make_orchestrator(tmp_path, server.base_url, hooks=hooks)
        await orch.run_input(GOAL)
        await orch.run_input("and the printer too")
        assert (await orch.run_input("/compact the public API of parse()")).ok
        [request] = script.summary_requests
        assert request["messages"][0]["content"].endswith(
            "The user asks this summary to focus on: the public API of parse()")
        hook_input = json.loads(seen.read_text())
        assert hook_input["hook_event_name"] == "PreCompact" and hook_input["trigger"] == "manual"
        assert hook_input["custom_instructions"] == "the public API of parse()"
        assert hook_input["session_id"] and hook_input["cwd"] == str(tmp_path)
        assert log.of(events.ContextCompacted)[-1].kept == ("the original request",)
        assert GOAL in (orch.session.messages[0].content or "")
