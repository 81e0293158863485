"""SPEC 27: ``status_line.command`` runs with Claude Code's status-line JSON on stdin and its first line shows in the
status line: a Claude Code script works unchanged, runs are throttled, and a slow command never holds input up."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from engine.events import UsageUpdated
from engine.protocol import EngineState
from coder_tui.runtime.status_command import StatusCommand, status_payload, StatusFacts
from tests.support.scenario import reply, text
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, submit, wait_until

# As a Claude Code user writes one (its docs' Python example): JSON on stdin, one line out, ANSI colours.
CLAUDE_CODE_SCRIPT = """\
#!/usr/bin/env python3
import json
import sys

data = json.load(sys.stdin)
model = data["model"]["display_name"]
current_dir = data["workspace"]["current_dir"]
cost = data.get("cost", {}).get("total_cost_usd", 0) or 0
used = data.get("context_window", {}).get("used_percentage", 0) or 0
print(f"\\033[36m[{model}]\\033[0m {current_dir.split('/')[-1]} | ${cost:.2f} | ctx {used:.0f}% | {data['session_id']}")
print("a second line is not shown")
"""


def script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "statusline.py"
    path.write_text(body)
    return f"{sys.executable} {path}"


def state(workspace: Path, command: str, timeout: float = 2.0) -> EngineState:
    return EngineState(
        protocol_version=1, workspace=str(workspace), session_id="s1", model="m", mode="default",
        context_window=1000, slash_commands=(), status_line_command=command, status_line_timeout_s=timeout,
    )


async def test_a_claude_code_status_line_script_runs_unchanged(
    tmp_path: Path, workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(text("done"), usage=(400_000, 100_000)))
    config = {
        "status_line": {"type": "command", "command": script(tmp_path, CLAUDE_CODE_SCRIPT)},
        "model_prices": {"scripted-model": {"input": 2.0, "output": 8.0}},
    }
    app = make_app(workspace, scripted_server, **config)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        status = app.session.status
        await wait_until(pilot, lambda: status.custom is not None, "the script's line")
        session_id = app.link.state.session_id if app.link.state else ""
        assert str(status.custom) == f"[scripted-model] {workspace.name} | $0.00 | ctx 0% | {session_id}"
        assert any("cyan" in str(span.style) or "36" in str(span.style) for span in status.custom.spans)
        await submit(pilot, "hello")
        await settle(pilot)
        await wait_until(pilot, lambda: "$1.60" in str(status.custom), "the cost in the script's line")
        assert "a second line" not in str(status.custom)


async def test_a_slow_command_is_stopped_and_never_holds_the_prompt(
    tmp_path: Path, workspace: Path, scripted_server: ScriptedServer
) -> None:
    pid_file = tmp_path / "pid"
    command = f"echo $$ > {pid_file}; exec sleep 30"
    app = make_app(workspace, scripted_server, status_line={"command": command, "timeout": 0.5})
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await wait_until(pilot, lambda: pid_file.exists() and pid_file.read_text().strip() != "", "the command")
        await pilot.press(*"typed while it runs")
        assert app.session.prompt.input.text == "typed while it runs"
        pid = int(pid_file.read_text())
        await wait_until(pilot, lambda: not _alive(pid), "the command stopped after its timeout")
        assert app.session.status.custom is None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie not reaped yet is not running either.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


async def test_runs_after_a_burst_of_events_are_throttled(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    shown = []
    runner = StatusCommand(state(tmp_path, f"echo run >> {runs}; echo line"), shown.append)
    for used in range(50):
        runner.heard(UsageUpdated(0, 0, used, 1000))
    await asyncio.sleep(1.2)
    runner.close()
    assert runs.read_text().count("run") == 2  # one at once, one for all the events during it
    assert len(shown) == 2 and str(shown[-1]) == "line"


def test_the_payload_has_claude_codes_fields(tmp_path: Path) -> None:
    facts = StatusFacts(tmp_path, "abc", "qwen", 1000, context_used=250, cost_usd=0.5, started=10.0)
    payload = status_payload(facts, "1.2.3", now=12.5)
    assert payload["model"] == {"id": "qwen", "display_name": "qwen"}
    assert payload["workspace"] == {"current_dir": str(tmp_path), "project_dir": str(tmp_path)}
    assert payload["session_id"] == "abc" and payload["version"] == "1.2.3"
    assert payload["transcript_path"] == str(tmp_path / ".coder" / "sessions" / "abc.json")
    assert payload["cost"]["total_cost_usd"] == 0.5 and payload["cost"]["total_duration_ms"] == 2500
    assert payload["context_window"]["context_window_size"] == 1000
    assert payload["context_window"]["used_percentage"] == 25.0
