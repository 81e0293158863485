"""SPEC 15 headless: `coder-tui -p`, piped stdin, JSON lines, exit codes — the real CLI as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.scenario import error, reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

REPO = Path(__file__).resolve().parents[2]


def run_cli(
    args: list[str],
    workspace: Path,
    server: ScriptedServer | None,
    *,
    stdin: str | None = None,
    key: str = "sk-cli",
    extra_env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CODER_"))}
    env["XDG_CONFIG_HOME"] = str(workspace / ".xdg")
    env.update(extra_env or {})
    env["PYTHONPATH"] = str(REPO)
    if server is not None:
        env["OPENAI_BASE_URL"] = server.base_url
        env["OPENAI_API_KEY"] = key
    return subprocess.run(
        [sys.executable, "-m", "coder_tui", "--cwd", str(workspace), *args],
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_yolo_turn_reads_writes_edits_and_runs_bash(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    (tmp_path / "greet.py").write_text("def greet():\n    return 'hello'\n")
    scripted_server.add(
        reply(text("Looking first."), tool_call("read", id="c1", path="greet.py")),
        reply(tool_call("write", id="c2", path="notes/todo.md", content="- shout\n")),
        reply(tool_call("edit", id="c3", path="greet.py", old_string="'hello'", new_string="'HELLO'")),
        reply(tool_call("bash", id="c4", command="python3 -c 'import greet; print(greet.greet())'")),
        text("Done: greet() now shouts."),
    )
    done = run_cli(["-p", "make greet shout", "--mode", "yolo"], tmp_path, scripted_server)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("Done: greet() now shouts.")
    assert "[bash]" in done.stderr and "success" in done.stderr
    assert (tmp_path / "greet.py").read_text() == "def greet():\n    return 'HELLO'\n"
    assert (tmp_path / "notes" / "todo.md").read_text() == "- shout\n"

    last_request = scripted_server.requests[-1].body
    tool_messages = [m for m in last_request["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["c1", "c2", "c3", "c4"]
    results = [json.loads(m["content"]) for m in tool_messages]
    assert all(r["ok"] for r in results)
    assert results[3]["stdout"] == "HELLO\n" and results[3]["exit_code"] == 0

    (session_file,) = (tmp_path / ".coder" / "sessions").glob("*.json")
    saved = json.loads(session_file.read_text())
    assert saved["messages"][1:] == last_request["messages"][1:] + [
        {"role": "assistant", "content": "Done: greet() now shouts."}
    ]
    assert saved["tools"] == last_request["tools"]
    assert b"sk-cli" not in session_file.read_bytes()


def test_json_output_is_one_event_per_line_ending_with_result(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(tool_call("list", path=".")), text("Empty folder."))
    done = run_cli(["-p", "what is here?", "--output-format", "json"], tmp_path, scripted_server)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    types = [line["type"] for line in lines]
    assert types[0] == "TurnStarted"
    assert "ToolCallFinished" in types and "TextDelta" in types
    assert types[-2] == "TurnFinished"
    result = lines[-1]
    assert result["type"] == "result" and result["ok"] is True and result["text"] == "Empty folder."
    assert Path(result["session_file"]).exists()


def test_stdin_is_the_input_when_not_a_tty(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("Got it."))
    done = run_cli([], tmp_path, scripted_server, stdin="summarise\nthis please\n")
    assert done.returncode == 0, done.stderr
    assert scripted_server.requests[0].body["messages"][-1]["content"] == "summarise\nthis please"


def test_bang_and_slash_work_headless_without_a_model(tmp_path: Path) -> None:
    done = run_cli(["-p", "!echo from-bang"], tmp_path, None)
    assert done.returncode == 0, done.stderr
    assert "from-bang" in done.stdout
    done = run_cli(["-p", "/help"], tmp_path, None)
    assert done.returncode == 0 and "/mode" in done.stdout


def test_turn_without_model_says_how_to_configure(tmp_path: Path) -> None:
    done = run_cli(["-p", "hello"], tmp_path, None)
    assert done.returncode == 1
    assert "OPENAI_API_KEY" in done.stderr
    assert "Traceback" not in done.stderr


def test_wrong_key_is_one_readable_line(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(error(401, "Incorrect API key provided"))
    done = run_cli(["-p", "hello"], tmp_path, scripted_server, key="sk-wrong")
    assert done.returncode == 1
    assert "authentication failed (401)" in done.stderr
    assert "Traceback" not in done.stderr


def test_headless_default_mode_refuses_ask_and_model_is_told(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("write", path="x.txt", content="x")), text("I was not allowed."))
    done = run_cli(["-p", "write x"], tmp_path, scripted_server)
    assert done.returncode == 0
    assert not (tmp_path / "x.txt").exists()
    (tool_message,) = [m for m in scripted_server.requests[1].body["messages"] if m["role"] == "tool"]
    assert "non-interactive" in json.loads(tool_message["content"])["error"]


def test_failed_turn_exits_non_zero(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    done = run_cli(["-p", "/nope"], tmp_path, scripted_server)
    assert done.returncode == 1
    assert "unknown command /nope" in done.stderr


@pytest.mark.parametrize(
    "args",
    [["--mode", "turbo", "-p", "x"], ["--output-format", "xml", "-p", "x"], ["--cwd", "/no/such/dir", "-p", "x"], ["-p", "   "]],
)
def test_bad_usage_exits_2(tmp_path: Path, args: list[str]) -> None:
    done = run_cli(args, tmp_path, None)
    assert done.returncode == 2
    assert "usage:" in done.stderr


def test_invalid_config_is_reported_and_the_run_goes_on(tmp_path: Path) -> None:
    (tmp_path / ".coder").mkdir()
    (tmp_path / ".coder" / "config.json").write_text(json.dumps({"max_steps": "lots"}))
    done = run_cli(["-p", "!echo still-runs"], tmp_path, None)
    assert done.returncode == 0
    assert "config.json: max_steps" in done.stderr
    assert "still-runs" in done.stdout


def test_failing_bang_command_exits_with_its_own_status(tmp_path: Path) -> None:
    done = run_cli(["-p", "!exit 4"], tmp_path, None)
    assert done.returncode == 4
    assert "The user ran" not in done.stdout + done.stderr


def test_closed_stdout_pipe_stops_quietly(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    from tests.support.scenario import slow

    scripted_server.add(slow(text("word " * 400), delay=0.001))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CODER_"))}
    env.update(
        XDG_CONFIG_HOME=str(tmp_path / ".xdg"),
        PYTHONPATH=str(REPO),
        OPENAI_BASE_URL=scripted_server.base_url,
        OPENAI_API_KEY="sk",
    )
    command = f"{sys.executable} -m coder_tui --cwd {tmp_path} -p hi --output-format json | head -n 2"
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True, env=env, timeout=60
    )
    assert len(done.stdout.splitlines()) == 2
    assert "Traceback" not in done.stderr and "Broken pipe" not in done.stderr
    assert done.returncode == 141


def test_continue_resumes_the_latest_session_and_undo_works_headless(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    (tmp_path / "a.txt").write_text("before\n")
    scripted_server.add(
        reply(tool_call("read", path="a.txt")),
        reply(tool_call("write", path="a.txt", content="after\n")),
        text("changed"),
    )
    assert run_cli(["-p", "change a.txt", "--mode", "auto-edit"], tmp_path, scripted_server).returncode == 0
    assert (tmp_path / "a.txt").read_text() == "after\n"
    done = run_cli(["--continue", "-p", "/undo"], tmp_path, scripted_server)
    assert done.returncode == 0, done.stderr
    assert "restored a.txt" in done.stdout
    assert "resumed session" in done.stderr
    assert (tmp_path / "a.txt").read_text() == "before\n"


def test_resume_unknown_id_fails_readably(tmp_path: Path) -> None:
    done = run_cli(["--resume", "nope", "-p", "/help"], tmp_path, None)
    assert done.returncode == 1
    assert "no session 'nope'" in done.stderr
    assert "Traceback" not in done.stderr


def test_damaged_database_is_a_clear_error_and_is_left_alone(tmp_path: Path) -> None:
    database = tmp_path / ".coder" / "coder.db"
    database.parent.mkdir()
    database.write_bytes(b"this is not a database" * 100)
    done = run_cli(["-p", "!echo hi"], tmp_path, None)
    assert done.returncode == 1
    assert str(database) in done.stderr and "Traceback" not in done.stderr
    assert database.read_bytes() == b"this is not a database" * 100
