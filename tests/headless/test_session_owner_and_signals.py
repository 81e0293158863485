"""SPEC 21 with real processes: one owner per session (a second --continue is refused naming the live process,
--fork copies the session instead), and SIGTERM / SIGHUP end like SIGINT (the bash group killed, the open call
marked interrupted, everything saved, exit 143 / 129)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

REPO = Path(__file__).resolve().parents[2]


def cli_env(workspace: Path, server: ScriptedServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CODER_"))}
    env.update(
        XDG_CONFIG_HOME=str(workspace / ".xdg"),
        PYTHONPATH=str(REPO),
        OPENAI_BASE_URL=server.base_url,
        OPENAI_API_KEY="sk-test",
    )
    return env


def start(workspace: Path, server: ScriptedServer, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "coder_tui", "--cwd", str(workspace), *args],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=cli_env(workspace, server),
    )


def run(workspace: Path, server: ScriptedServer, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "coder_tui", "--cwd", str(workspace), *args],
        input="", capture_output=True, text=True, env=cli_env(workspace, server), timeout=60,
    )


def wait_for(condition, what: str, process: subprocess.Popen[str]) -> None:  # type: ignore[no-untyped-def]
    """Polls until ``condition`` holds; the cap only turns a hang into a clear failure."""
    for _ in range(600):
        if condition():
            return
        if process.poll() is not None:
            raise AssertionError(f"the process ended before {what}: {process.stderr.read() if process.stderr else ''}")
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie has ended; only its exit status is left for a parent to collect
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def living_in_group(pgid: int) -> list[int]:
    """The processes of group ``pgid`` that still run (zombies waiting to be reaped have ended)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


def session_json(workspace: Path, session_id: str) -> dict[str, object]:
    path = workspace / ".coder" / "sessions" / f"{session_id}.json"
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def test_second_continue_is_refused_naming_the_live_process_and_fork_copies(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    marker = tmp_path / "started"
    scripted_server.add(reply(tool_call("bash", command=f"touch {marker}; sleep 60")), text("first run done"))
    first = start(tmp_path, scripted_server, "--mode", "yolo", "-p", "first request")
    try:
        wait_for(marker.exists, "the first run's bash call", first)
        refused = run(tmp_path, scripted_server, "--continue", "-p", "second request")
        assert refused.returncode == 1
        assert f"is open in another coder-tui process (pid {first.pid}: " in refused.stderr
        assert "first request" in refused.stderr  # its command line
        assert "--fork" in refused.stderr and "Traceback" not in refused.stderr
        assert len(scripted_server.requests) == 1  # the refused run asked the model nothing

        scripted_server.add(text("answered in the copy"))
        forked = run(tmp_path, scripted_server, "--continue", "--fork", "-p", "second request",
                     "--output-format", "json")
        assert forked.returncode == 0, forked.stderr
        result = json.loads(forked.stdout.splitlines()[-1])
        copy = session_json(tmp_path, str(result["session_id"]))
        contents = [m.get("content") for m in copy["messages"]]  # type: ignore[union-attr]
        assert "first request" in contents and "second request" in contents
        # The copy's history is valid for the API: the call still running in the first process is interrupted.
        tool_results = [m for m in copy["messages"] if m["role"] == "tool"]  # type: ignore[index,union-attr]
        assert tool_results and "interrupted" in tool_results[0]["content"]
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=60)
    # The owner is gone (and so is its lock): the session can be continued now.
    scripted_server.add(text("continued"))
    after = run(tmp_path, scripted_server, "--continue", "-p", "third request")
    assert after.returncode == 0, after.stderr


def test_a_killed_owner_leaves_no_lock(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    marker = tmp_path / "started"
    scripted_server.add(reply(tool_call("bash", command=f"touch {marker}; sleep 60")))
    first = start(tmp_path, scripted_server, "--mode", "yolo", "-p", "first request")
    wait_for(marker.exists, "the first run's bash call", first)
    first.kill()
    first.communicate(timeout=60)
    scripted_server.add(text("continued"))
    after = run(tmp_path, scripted_server, "--continue", "-p", "again")
    assert after.returncode == 0, after.stderr
    assert "continued" in after.stdout


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)])
def test_signal_kills_the_bash_group_marks_the_call_interrupted_and_saves(
    tmp_path: Path, scripted_server: ScriptedServer, signum: signal.Signals, code: int
) -> None:
    pids = tmp_path / "pids"
    command = f"sleep 100 & echo $! > {pids}.tmp; echo $$ >> {pids}.tmp; mv {pids}.tmp {pids}; sleep 100"
    scripted_server.add(reply(tool_call("bash", command=command)), text("never reached"))
    process = start(tmp_path, scripted_server, "--mode", "yolo", "-p", "start two sleeps", "--output-format", "json")
    wait_for(pids.exists, "the bash call's children", process)
    background, shell = (int(line) for line in pids.read_text().split())
    process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == code, stderr
    assert "Traceback" not in stderr
    assert not alive(background) and not alive(shell)
    assert living_in_group(shell) == []  # nothing is left in the command's process group
    result = json.loads(stdout.splitlines()[-1])
    saved = session_json(tmp_path, result["session_id"])
    messages: list[dict[str, object]] = saved["messages"]  # type: ignore[assignment]
    calls = [m for m in messages if m["role"] == "assistant" and m.get("tool_calls")]
    results = [m for m in messages if m["role"] == "tool"]
    assert len(calls) == 1 and len(results) == 1
    assert results[0]["tool_call_id"] == calls[0]["tool_calls"][0]["id"]  # type: ignore[index]
    assert "interrupted" in str(results[0]["content"])
    assert not list((tmp_path / ".coder" / "sessions").glob("*.tmp"))
