"""Issue 13, headless and files: what a new user tripped over in the first hour, through the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.headless.test_headless_cli import run_cli
from tests.support import plugin_free_pytest as plugin_free
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

# Auto-verify runs `pytest -q` from PATH: the interpreter's own bin/ (where pytest is) need not be on it (a
# virtualenv not activated), so these runs put it there; and without this environment's plugins.
WITH_PYTEST = {
    "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]), **plugin_free.ENV
}


def test_a_bang_command_prints_its_own_output_and_exits_with_its_status(tmp_path: Path) -> None:
    done = run_cli(["-p", "!printf 'out\\n'; printf 'err\\n' >&2; exit 3"], tmp_path, None)
    assert done.stdout == "out\n"
    assert done.stderr == "err\n"
    assert done.returncode == 3
    assert run_cli(["-p", "!printf 'fine\\n'"], tmp_path, None).returncode == 0


def test_a_bang_command_keeps_its_structured_event_in_json_mode(tmp_path: Path) -> None:
    done = run_cli(["-p", "!echo hi; exit 2", "--output-format", "json"], tmp_path, None)
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    (bang,) = [line for line in lines if line["type"] == "ShellCommandRan"]
    assert bang["stdout"] == "hi\n" and bang["exit_code"] == 2
    assert lines[-1]["type"] == "result" and lines[-1]["exit_status"] == 2
    assert done.returncode == 2


def test_the_replies_of_one_turn_are_separated_and_a_failed_verification_exits_1(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    """Auto-verify hands each failure back: three replies with no tool call between the last two."""
    (tmp_path / "test_z.py").write_text("def test_z():\n    assert False\n")
    (tmp_path / ".xdg" / "coder").mkdir(parents=True)  # run_cli's user config folder
    (tmp_path / ".xdg" / "coder" / "config.json").write_text(json.dumps({"bash": plugin_free.BASH}))
    scripted_server.add(
        reply(tool_call("write", path="z.py", content="x = 1\n")),
        text("Wrote z.py."),
        text("ok (default)"),
        text("ok (default)"),
    )
    done = run_cli(
        ["-p", "create z.py", "--mode", "auto-edit", "--output-format", "text"], tmp_path, scripted_server,
        extra_env=WITH_PYTEST,
    )
    assert done.stdout == "Wrote z.py.\n\nok (default)\n\nok (default)\n"
    assert done.returncode == 1
    assert "auto-verify: `pytest -q` still fails after 2 retries" in done.stderr
    assert "[verify] pytest -q (attempt 1)" in done.stderr

    scripted_server.add(reply(tool_call("write", path="z2.py", content="x = 2\n")), *[text("again")] * 3)
    as_json = run_cli(
        ["-p", "again", "--mode", "auto-edit", "--output-format", "json"], tmp_path, scripted_server,
        extra_env=WITH_PYTEST,
    )
    result = json.loads(as_json.stdout.splitlines()[-1])
    assert (result["ok"], result["reason"]) == (False, "verify_failed")
    assert as_json.returncode == 1


def test_continue_after_a_bang_run_still_undoes_the_last_turn(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    """The README's sequence: a turn, a `!` command in a run of its own, then `--continue -p /undo`."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".git" / "info" / "exclude").write_text(".xdg/\n")  # run_cli's user config folder
    scripted_server.add(reply(tool_call("write", path="z.py", content="x = 1\n")), text("Wrote z.py."))
    assert run_cli(["-p", "create z.py", "--mode", "auto-edit"], tmp_path, scripted_server).returncode == 0
    assert run_cli(["-p", "!git status --short"], tmp_path, None).stdout == "?? z.py\n"
    assert run_cli(["-p", "/help"], tmp_path, None).returncode == 0
    undone = run_cli(["--continue", "-p", "/undo"], tmp_path, scripted_server)
    assert undone.returncode == 0, undone.stderr
    assert not (tmp_path / "z.py").exists()


def test_the_state_folder_is_ignored_by_git(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "app.py").write_text("print(1)\n")
    # run_cli keeps the user's config folder in the workspace (.xdg/): not what this test is about.
    (tmp_path / ".git" / "info" / "exclude").write_text(".xdg/\n")
    assert run_cli(["-p", "!echo hi"], tmp_path, None).returncode == 0
    assert (tmp_path / ".coder" / "coder.db").is_file()
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=tmp_path,
                            capture_output=True, text=True, check=True)
    assert status.stdout == "?? app.py\n"


def test_yolo_asks_nothing_even_for_a_patch_that_deletes_a_file_never_read(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    (tmp_path / "old.txt").write_text("bye\n")
    (tmp_path / "keep.txt").write_text("old\n")
    patch = "*** Begin Patch\n*** Delete File: old.txt\n*** Add File: keep.txt\n+new\n*** End Patch\n"
    scripted_server.add(reply(tool_call("patch", patch=patch)), text("Cleaned up."))
    done = run_cli(["-p", "clean up", "--mode", "yolo"], tmp_path, scripted_server)
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "old.txt").exists()
    assert (tmp_path / "keep.txt").read_text() == "new\n"
    result = json.loads([m for m in scripted_server.requests[-1].body["messages"] if m["role"] == "tool"][0]["content"])
    assert result["ok"] is True


def test_outside_yolo_the_same_patch_is_refused_headless_because_it_would_ask(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    (tmp_path / "old.txt").write_text("bye\n")
    patch = "*** Begin Patch\n*** Delete File: old.txt\n*** End Patch\n"
    scripted_server.add(reply(tool_call("patch", patch=patch)), text("Could not."))
    done = run_cli(["-p", "clean up", "--mode", "auto-edit"], tmp_path, scripted_server)
    assert (tmp_path / "old.txt").exists()
    result = json.loads([m for m in scripted_server.requests[-1].body["messages"] if m["role"] == "tool"][0]["content"])
    assert result["ok"] is False and "not read in this session" in result["error"]
    assert done.returncode == 0
