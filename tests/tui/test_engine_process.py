"""The TUI with its engine in its own process (issue 14): a crash of the engine process is shown with its error, the
engine restarts on the same session, and the session stays resumable with ``--continue``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from coder_tui.app import CoderApp
from coder_tui.link.engine_process import EngineProcesses
from coder_tui.input.history import InputHistory
from coder_tui.widgets.notice_line import NoticeLine
from coder_tui.widgets.user_message import UserMessage
from tests.support.scenario import reply, stall, text
from tests.support.scripted_server import ScriptedServer
from tests.support.stored_session import stored_session
from tests.tui.helpers import ready, settle, submit, wait_until


@pytest.fixture(autouse=True)
def model_environment(monkeypatch: pytest.MonkeyPatch, scripted_server: ScriptedServer) -> None:
    """The engine process reads its model from the environment, as a user's would."""
    monkeypatch.setenv("OPENAI_BASE_URL", scripted_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("CODER_MODEL", "scripted-model")


def process_app(workspace: Path, first_inputs: tuple[str, ...] = ()) -> tuple[CoderApp, EngineProcesses]:
    engine = EngineProcesses(workspace=workspace)
    app = CoderApp(workspace=workspace, engine=engine, first_inputs=first_inputs, history=InputHistory(None))
    return app, engine


def notices(app: CoderApp) -> list[str]:
    return [entry.text for entry in app.session.transcript.entries if isinstance(entry, NoticeLine)]


async def test_a_killed_engine_is_shown_restarted_on_its_session_and_resumable(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(text("the first answer")), stall(after=reply(text("Working on it")), seconds=30))
    app, engine = process_app(workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "remember this")
        await settle(pilot)
        session_id = app.link.state.session_id  # type: ignore[union-attr]
        first_pid = engine.current.pid  # type: ignore[union-attr]
        await submit(pilot, "a long task")
        await wait_until(pilot, lambda: len(scripted_server.requests) == 2, "the long task to reach the model")
        os.kill(first_pid, signal.SIGKILL)
        await wait_until(pilot, lambda: any("the engine stopped during a task" in n for n in notices(app)),
                         "the crash to be shown")
        assert any("killed by signal 9" in n for n in notices(app))
        await wait_until(pilot, lambda: app.link.state is not None and not app.link.busy and not app.link.queued,
                         "the engine to restart")
        await settle(pilot)
        assert engine.current.pid != first_pid  # type: ignore[union-attr]
        assert app.link.state.session_id == session_id  # type: ignore[union-attr]
        assert app.session.status.state != "working"
        # The transcript still shows the conversation and why the engine restarted.
        texts = [getattr(entry, "text", "") for entry in app.session.transcript.entries]
        assert "remember this" in texts and "the first answer" in texts and "a long task" in texts, texts
        assert any("killed by signal 9" in n for n in notices(app)), notices(app)
        assert notices(app)[-1] == f"the engine restarted; session {session_id} resumed"

    app, engine = process_app(workspace, first_inputs=("/resume --last",))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await settle(pilot)
        assert app.link.state.session_id == session_id  # type: ignore[union-attr]
        users = [entry.text for entry in app.session.transcript.entries if isinstance(entry, UserMessage)]
        assert "remember this" in users and "a long task" in users
    assert engine.current.process.poll() is not None  # type: ignore[union-attr]


async def test_an_engine_that_cannot_start_says_why(workspace: Path, scripted_server: ScriptedServer) -> None:
    (workspace / ".coder").mkdir()
    (workspace / ".coder" / "coder.db").write_text("this is not a database")
    app, _ = process_app(workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: any("could not start" in n for n in notices(app)), "the failure")
        assert app.session.status.state == "unavailable"


async def test_resume_at_launch_draws_the_history_the_engine_sent_first_once(
    workspace: Path, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--resume ID``: the engine process sends the history before it is built; the transcript shows it once, with
    no "/resume" line of its own, and the session is the resumed one."""
    from coder_tui.widgets.transcript import Transcript

    session_id = stored_session(workspace, "the stored request", "the stored answer")
    shown: list[int] = []
    show_history = Transcript.show_history
    monkeypatch.setattr(Transcript, "show_history", lambda self, history: (shown.append(len(history.entries)),
                                                                          show_history(self, history))[1])
    engine = EngineProcesses(workspace=workspace, resume=session_id)
    app = CoderApp(workspace=workspace, engine=engine, first_inputs=(f"/resume {session_id}",),
                   history=InputHistory(None))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await settle(pilot)
        assert app.link.state.session_id == session_id  # type: ignore[union-attr]
        assert shown == [2]  # drawn once
        texts = [getattr(entry, "text", "") for entry in app.session.transcript.entries]
        assert texts[:2] == ["the stored request", "the stored answer"], texts
        users = [entry.text for entry in app.session.transcript.entries if isinstance(entry, UserMessage)]
        assert users == ["the stored request"]
        assert app.session.status.state == "ready"


SPAWN_PROBE = r"""
import subprocess, sys

class Spawned(Exception):
    pass

def popen(command, **options):
    raise Spawned(sorted(name for name in ("asyncio", "textual") if name in sys.modules))

subprocess.Popen = popen

class Terminal:
    def isatty(self):
        return True

sys.stdin = Terminal()
from coder_tui.cli import main
try:
    main(["--cwd", sys.argv[1]])
except Spawned as spawned:
    print("LOADED", *spawned.args[0])
"""


def test_the_command_line_spawns_the_engine_before_it_imports_asyncio(tmp_path: Path) -> None:
    """The engine process loads on the other core while the UI starts: every import before its spawn (asyncio is a
    thirtieth of a second) delays a request typed at launch."""
    root = Path(__file__).resolve().parents[2]
    project = tmp_path / "project"  # below the test's home folder, never a workspace
    project.mkdir()
    completed = subprocess.run(
        [sys.executable, "-c", SPAWN_PROBE, str(project)], cwd=root, capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert completed.stdout.split() == ["LOADED"], completed.stderr[-2000:]
