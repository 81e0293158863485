"""SPEC 23 through the real CLI (`coder-tui -p`, engine and all): a custom command, a hook that blocks a call, and
/export of the session a --continue picks up."""

from __future__ import annotations

import json
from pathlib import Path

from tests.headless.test_headless_cli import run_cli
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


def user_config(workspace: Path) -> Path:
    return workspace / ".xdg" / "coder"  # run_cli's XDG_CONFIG_HOME


def test_a_custom_command_runs_as_the_request(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    commands = user_config(tmp_path) / "commands"
    commands.mkdir(parents=True)
    (commands / "standup.md").write_text("---\ndescription: a standup\n---\nSummarise the work on $1.\n")
    scripted_server.add(text("Nothing happened."))
    done = run_cli(["-p", "/standup tuesday"], tmp_path, scripted_server)
    assert done.returncode == 0, done.stderr
    assert scripted_server.requests[0].body["messages"][-1]["content"].startswith("Summarise the work on tuesday.")
    assert done.stdout.strip() == "Nothing happened."


def test_a_pre_tool_use_hook_blocks_rm_in_a_trusted_folder(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    (tmp_path / "keep.txt").write_text("keep\n")
    config = user_config(tmp_path)
    config.mkdir(parents=True)
    guard = "grep -q '\"rm ' && { echo 'no rm here' >&2; exit 2; } || exit 0"
    (config / "config.json").write_text(json.dumps({
        "trusted_folders": [str(tmp_path.resolve())],
        "hooks": {"PreToolUse": [{"matcher": "bash", "hooks": [{"type": "command", "command": guard}]}]},
    }))
    scripted_server.add(reply(tool_call("bash", command="rm keep.txt")), text("Kept it."))
    done = run_cli(["-p", "remove keep.txt", "--mode", "yolo"], tmp_path, scripted_server)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "keep.txt").exists()
    result = json.loads(scripted_server.requests[1].body["messages"][-1]["content"])
    assert result == {"ok": False, "error": "blocked by a PreToolUse hook: no rm here"}


def test_export_writes_the_continued_session_as_markdown(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("Hello, I am here."))
    assert run_cli(["-p", "say hello"], tmp_path, scripted_server).returncode == 0
    done = run_cli(["--continue", "-p", "/export notes/session.md"], tmp_path, scripted_server)
    assert done.returncode == 0, done.stderr
    markdown = (tmp_path / "notes" / "session.md").read_text()
    assert markdown.startswith("# say hello\n") and "Hello, I am here." in markdown
