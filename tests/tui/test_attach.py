"""Leaving agents running and coming back (SPEC 26, ``coder-tui --attach``), with the engine in its own process: the
quit question leaves the engine running mid-stream, an approval its agent asks meanwhile waits (never approved), and
a UI that attaches later shows the agents, answers the approval, and the command runs; one UI at a time; nothing to
attach to is said, with a non-zero exit."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from coder_tui.app import CoderApp
from coder_tui.cli import main
from coder_tui.input.history import InputHistory
from coder_tui.link.engine_process import EngineProcesses
from coder_tui.link.engine_socket import AttachedEngines, AttachError, attach_engine
from coder_tui.screens.approval import ApprovalScreen
from coder_tui.screens.question import QuestionScreen
from engine.server.rendezvous import rendezvous_for
from tests.support.scenario import ReplyLike, reply, slow, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import ready, settle, submit, wait_until
from tests.tui.test_agents_pane import make_repo, state_of

# What alpha streams before it asks to run its command: slow enough to leave while it streams.
ALPHA_THINKING = "alpha looks at the tree first. " * 5


@pytest.fixture(autouse=True)
def model_and_runtime(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The engine process reads its model from the environment, and keeps its socket in the test's own runtime
    folder (as ``$XDG_RUNTIME_DIR`` is a user's)."""
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("CODER_MODEL", "scripted-model")
    return runtime


def alpha_answer(body: dict[str, Any]) -> ReplyLike:
    """The main session is answered at once; alpha streams slowly, then asks to run ``touch made.txt``; once it
    ran, it says so."""
    if not any("agent alpha" in str(message["content"]) for message in body["messages"] if message["role"] == "user"):
        return reply(text("the main session's answer"))
    if body["messages"][-1]["role"] == "user":
        return slow(reply(text(ALPHA_THINKING), tool_call("bash", command="touch made.txt")), delay=0.05)
    return reply(text("alpha made its file"))


def texts_shown(app: CoderApp) -> list[str]:
    return [getattr(entry, "text", "") for entry in app.session.transcript.entries]


async def test_agents_left_running_are_attached_again_and_their_approval_answered_there(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_repo(workspace)
    made = workspace / ".coder" / "worktrees" / "alpha" / "made.txt"
    with ScriptedServer(fallback=alpha_answer) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        engines = EngineProcesses(workspace=workspace)
        app = CoderApp(workspace=workspace, engine=engines, history=InputHistory(None))
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot)
            await submit(pilot, "a question for the main session")
            await settle(pilot)
            await submit(pilot, "/spawn --name alpha agent alpha: make the file")
            await wait_until(pilot, lambda: state_of(app, "alpha") == "working" and len(server.requests) == 2,
                             "alpha to stream")
            await pilot.press("ctrl+d")
            await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), "the quit question")
            asked = app.screen.request  # type: ignore[attr-defined]
            await pilot.press("2")  # Leave them running
            await wait_until(pilot, lambda: app.left_running is not None, "the engine to be left running")
        engine = engines.current.process  # type: ignore[union-attr]

        assert asked.options == ("Stop them and quit", "Leave them running", "Stay")
        # The UI is gone; the engine goes on: alpha's stream ends and it asks for its command with no UI to answer.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and engine.poll() is None and len(server.served_spans()) < 2:
            await asyncio.sleep(0.1)
        await asyncio.sleep(1.0)  # the engine reads the end of the stream and asks
        assert engine.poll() is None
        assert not made.exists()  # asked, and waiting: never approved without a UI
        assert app.left_running == str(rendezvous_for(workspace).socket)

        attached = attach_engine(workspace)
        assert attached.pid == engine.pid
        app = CoderApp(workspace=workspace, engine=AttachedEngines(attached), history=InputHistory(None))
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot)
            await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval asked meanwhile")
            waiting = state_of(app, "alpha")
            main_shown = texts_shown(app)
            with pytest.raises(AttachError) as refused:
                attach_engine(workspace)
            await pilot.press("y")
            await wait_until(pilot, lambda: state_of(app, "alpha") == "done", "alpha to finish")
            await submit(pilot, "/agents show alpha")
            await wait_until(pilot, lambda: app.link.agent_in_view == "alpha", "alpha's view")
            await settle(pilot)
            alpha_said = texts_shown(app)
            await submit(pilot, "/agents main")
            await wait_until(pilot, lambda: app.link.agent_in_view is None, "the main view")
            await pilot.press("ctrl+d")  # nothing runs now: quitting ends the engine
            await pilot.pause()
        ended = await asyncio.to_thread(engine.wait, 10)

    assert waiting == "waiting for you"
    assert "a question for the main session" in main_shown and "the main session's answer" in main_shown, main_shown
    assert f"the engine (pid {engine.pid}) of {workspace}" in str(refused.value)
    assert made.exists()
    assert "alpha made its file" in alpha_said, alpha_said
    assert ended == 0
    assert not Path(app.left_running or rendezvous_for(workspace).socket).exists()


def test_attach_with_no_engine_running_says_so_and_fails(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["--attach", "--cwd", str(workspace)])
    assert code == 1
    said = capsys.readouterr().err
    assert f"no coder-tui engine was left running in {workspace.resolve()}: nothing to attach to" in said


def test_attach_takes_the_engine_as_it_is(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--attach", "--cwd", str(workspace), "--mode", "yolo"])
    assert exited.value.code == 2
    assert "--mode cannot go with it" in capsys.readouterr().err


async def test_an_engine_that_cannot_be_left_running_says_so_and_the_app_stays(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    """The in-memory engine of the tests has no process to leave running: the answer says so, nothing quits."""
    from engine.events import AgentsChanged
    from tests.tui.helpers import make_app
    from tests.tui.test_agents_pane import MIXED

    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.session.show_event(AgentsChanged(MIXED))
        await pilot.press("ctrl+d")
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), "the quit question")
        await pilot.press("2")  # Leave them running
        await wait_until(pilot, lambda: bool(app._notifications), "the notice")
        said = [notice.message for notice in app._notifications]
        running = app.is_running
    assert running and app.left_running is None
    assert said == ["The agents cannot be left running: this engine cannot keep running without its front end"]
