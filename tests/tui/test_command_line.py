"""Issue 43 item 7: the command line's habits as a user meets them, on the real ``coder-tui``: a positional prompt
opens the full screen with it sent, ``-r`` with no id opens the session picker, ``-c`` / ``-r ID`` / ``--version``,
a ``--help`` that lists ``acp`` and nothing internal, and how to resume printed on the way out."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.headless.test_headless_cli import run_cli
from tests.support.pty_app import PtyApp
from tests.support.scenario import text
from tests.support.scripted_server import ScriptedServer


def project(tmp_path: Path) -> tuple[Path, Path]:
    """A project folder below its own home (coder-tui never works in the home folder)."""
    workspace = tmp_path / "home" / "project"
    workspace.mkdir(parents=True, exist_ok=True)
    return workspace, tmp_path / "home"


def test_a_positional_prompt_opens_the_full_screen_with_it_sent(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    workspace, home = project(tmp_path)
    scripted_server.add(text("Found it: the loop starts at 1."))
    with PtyApp(workspace, scripted_server.base_url, home, args=("fix the bug",)) as app:
        app.wait_shown("Found it: the loop starts at 1.")
        assert scripted_server.requests[0].body["messages"][-1]["content"].endswith("fix the bug")
        app.type("\x04")  # Ctrl+D on the empty prompt
        assert app.wait_exit() == 0
    session_id = re.search(rb"Resume this session with: coder-tui -r (\w+)", app.written)
    assert session_id is not None, app.written[-400:]

    scripted_server.add(text("Still here."))
    done = run_cli(["-r", session_id.group(1).decode(), "-p", "and now?"], workspace, scripted_server)
    assert done.returncode == 0, done.stderr
    contents = [m["content"] for m in scripted_server.requests[-1].body["messages"] if m["role"] == "user"]
    assert contents[-2].endswith("fix the bug") and contents[-1].endswith("and now?")


def test_quitting_an_empty_session_prints_no_resume_hint(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    workspace, home = project(tmp_path)
    with PtyApp(workspace, scripted_server.base_url, home) as app:
        app.wait_shown("scripted-model")
        app.type("\x04")
        assert app.wait_exit() == 0
    assert b"coder-tui -r" not in app.written


def test_resume_without_an_id_opens_the_session_picker(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    workspace, home = project(tmp_path)
    scripted_server.add(text("Noted."))
    assert run_cli(["-p", "remember the milk"], workspace, scripted_server).returncode == 0
    with PtyApp(workspace, scripted_server.base_url, home, args=("--resume",)) as app:
        app.wait_shown("remember the milk")
        assert "Resume which session?" in app.text()


def test_resume_without_an_id_in_headless_says_what_to_give(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    done = run_cli(["-r", "-p", "hello"], project(tmp_path)[0], scripted_server)
    assert done.returncode == 2
    assert "--resume needs a session ID" in done.stderr and "coder-tui -p /resume" in done.stderr
    assert scripted_server.requests == []


def test_short_continue_resumes_the_latest_session(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    workspace, _ = project(tmp_path)
    scripted_server.add(text("First."), text("Second."))
    assert run_cli(["-p", "one"], workspace, scripted_server).returncode == 0
    done = run_cli(["-c", "-p", "two"], workspace, scripted_server)
    assert done.returncode == 0, done.stderr
    contents = [m["content"] for m in scripted_server.requests[-1].body["messages"] if m["role"] == "user"]
    assert contents[-2].endswith("one") and contents[-1].endswith("two")


def test_version_and_help(tmp_path: Path) -> None:
    version = run_cli(["--version"], project(tmp_path)[0], None)
    assert version.returncode == 0 and re.fullmatch(r"coder-tui \d+\.\d+\.\d+\n", version.stdout)
    shown = run_cli(["--help"], project(tmp_path)[0], None)
    assert shown.returncode == 0
    assert "coder-tui acp" in shown.stdout and "Agent Client Protocol" in shown.stdout
    assert "-c, --continue" in shown.stdout and "-r [ID|WORDS], --resume [ID|WORDS]" in shown.stdout and "PROMPT" in shown.stdout
    assert "SPEC" not in shown.stdout and "issue" not in shown.stdout.lower()


def test_a_positional_prompt_and_p_together_are_refused(tmp_path: Path) -> None:
    done = run_cli(["-p", "one", "two"], project(tmp_path)[0], None)
    assert done.returncode == 2 and "PROMPT ('two') opens the full screen" in done.stderr


def test_resuming_shows_the_sessions_own_model(tmp_path: Path) -> None:
    """The engine's first state is sent after the opening /resume ran: the status line names the resumed session's
    model, not the one the engine started with."""
    workspace, home = project(tmp_path)
    with ScriptedServer([text("Hi.")], models=("scripted-model", "big-model")) as server:
        done = run_cli(["-p", "hello", "--model", "big-model", "--output-format", "json"], workspace, server)
        assert done.returncode == 0, done.stderr
        session_id = json.loads(done.stdout.splitlines()[-1])["session_id"]
        with PtyApp(workspace, server.base_url, home, args=("-r", session_id), model=None, size=(120, 30)) as app:
            app.wait_shown("resumed session")
            app.wait_shown("big-model")
