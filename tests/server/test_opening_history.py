"""Issue 14: the engine started with ``--resume ID`` / ``--continue`` sends that session's history before it builds its
orchestrator, holding the session's lock from then on; the opening ``/resume`` then runs as ever without sending the
history again. Whatever the early read cannot do (an unknown id, a session another process holds) is left to the
``/resume``, which says why as it always did."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from engine.command_results import CommandReply
from engine.events import Event, HistoryRestored
from engine.orchestrator.orchestrator import Orchestrator
from engine.protocol import EngineEvent, EngineReady, InputFinished, RunInput
from engine.server.host import EngineHost, EngineOptions
from engine.storage.sessions.lock import SessionLock
from tests.server.engine_client import EngineClient
from tests.support.fakes import make_config
from tests.support.scripted_server import ScriptedServer
from tests.support.stored_session import stored_session


class RecordingFrontend:
    """Every event, and "orchestrator built" where the host built its orchestrator."""

    def __init__(self) -> None:
        self.log: list[Any] = []
        self.finished: list[Any] = []

    def event(self, event: Event, session_id: str | None = None) -> None:
        self.log.append(event)

    def input_started(self, input_id: str) -> None:
        pass

    def input_finished(self, input_id: str, outcome: Any) -> None:
        self.finished.append(outcome)

    def histories(self) -> list[HistoryRestored]:
        return [e for e in self.log if isinstance(e, HistoryRestored)]

    def results(self) -> list[CommandReply]:
        return [e for e in self.log if isinstance(e, CommandReply)]


@pytest.fixture
def frontend(monkeypatch: pytest.MonkeyPatch) -> RecordingFrontend:
    recording = RecordingFrontend()
    built = Orchestrator.__init__

    def noting(self: Orchestrator, *args: Any, **kwargs: Any) -> None:
        recording.log.append("orchestrator built")
        built(self, *args, **kwargs)

    monkeypatch.setattr(Orchestrator, "__init__", noting)
    return recording


async def run_opening(workspace: Path, frontend: RecordingFrontend, opening: str, first_input: str) -> EngineHost:
    host = EngineHost(
        EngineOptions(workspace=workspace, env={"OPENAI_API_KEY": "sk-test"}, opening=opening),
        frontend,  # type: ignore[arg-type]
        config=make_config("http://127.0.0.1:9/v1"),
    )
    await host.start()
    host.submit("1", first_input)
    for _ in range(1000):
        if frontend.finished:
            break
        await asyncio.sleep(0.01)
    assert frontend.finished, "the opening input never finished"
    return host


async def test_the_opening_history_is_sent_before_the_engine_is_built_and_only_once(
    tmp_path: Path, frontend: RecordingFrontend
) -> None:
    session_id = stored_session(tmp_path, "an earlier request", "an earlier answer")
    host = await run_opening(tmp_path, frontend, session_id, f"/resume {session_id}")
    try:
        assert frontend.log.index(frontend.histories()[0]) < frontend.log.index("orchestrator built")
        (restored,) = frontend.histories()
        assert restored.session_id == session_id
        assert [e.record["content"] for e in restored.entries()] == ["an earlier request", "an earlier answer"]
        assert frontend.finished[0].reason == "completed"
        assert frontend.results()[-1].text.startswith(f"resumed session {session_id}")
        assert host.orchestrator is not None and host.orchestrator.session_id == session_id
    finally:
        await host.aclose()
    # The lock went with the engine: the session opens again.
    SessionLock.acquire(tmp_path, session_id).release()


async def test_continue_sends_the_latest_session_with_a_model_turn(
    tmp_path: Path, frontend: RecordingFrontend
) -> None:
    wanted = stored_session(tmp_path, "asked the model", "it answered")
    stored_session(tmp_path, "!git status", "a bang command only", with_turn=False)
    host = await run_opening(tmp_path, frontend, "--last", "/resume --last")
    try:
        assert [restored.session_id for restored in frontend.histories()] == [wanted]
        assert host.orchestrator is not None and host.orchestrator.session_id == wanted
    finally:
        await host.aclose()


async def test_a_session_another_process_holds_is_not_sent_and_still_refused(
    tmp_path: Path, frontend: RecordingFrontend
) -> None:
    session_id = stored_session(tmp_path, "an earlier request", "an earlier answer")
    held = SessionLock.acquire(tmp_path, session_id)  # as another live process would
    try:
        host = await run_opening(tmp_path, frontend, session_id, f"/resume {session_id}")
        try:
            assert frontend.histories() == []
            assert frontend.finished[0].reason == "error"
            assert "is open in another coder-tui process (pid" in frontend.results()[-1].text
            assert host.orchestrator is not None and host.orchestrator.session_id != session_id
        finally:
            await host.aclose()
    finally:
        held.release()


async def test_an_opening_resume_that_fails_in_storage_lets_the_session_go(
    tmp_path: Path, frontend: RecordingFrontend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lock the engine opened with is released when the resume fails (a damaged or locked database), not kept
    until the next switch or exit."""
    from engine.orchestrator import session_commands
    from engine.storage.errors import StorageError

    session_id = stored_session(tmp_path, "an earlier request", "an earlier answer")

    def failing(*_args: Any) -> None:
        raise StorageError("database is locked")

    monkeypatch.setattr(session_commands, "plan_resume", failing)
    host = await run_opening(tmp_path, frontend, session_id, f"/resume {session_id}")
    try:
        assert frontend.histories()[0].session_id == session_id
        assert frontend.finished[0].reason == "error"
        assert host.orchestrator is not None and host.orchestrator.session_id != session_id
        SessionLock.acquire(tmp_path, session_id).release()  # another process could open it now
    finally:
        await host.aclose()


async def test_an_unknown_session_is_not_sent_and_the_resume_says_so(
    tmp_path: Path, frontend: RecordingFrontend
) -> None:
    stored_session(tmp_path, "an earlier request", "an earlier answer")
    host = await run_opening(tmp_path, frontend, "nosuchsession", "/resume nosuchsession")
    try:
        assert frontend.histories() == []
        assert "no session 'nosuchsession'" in frontend.results()[-1].text
    finally:
        await host.aclose()


def test_the_engine_process_sends_the_history_before_it_is_ready(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    session_id = stored_session(workspace, "an earlier request", "an earlier answer")
    engine = EngineClient(workspace, scripted_server.base_url, "--resume", session_id)
    try:
        engine.send(RunInput("i1", f"/resume {session_id}"))
        engine.wait_for(lambda m: isinstance(m, InputFinished), "the resume to finish")
        kinds = [type(m.event) if isinstance(m, EngineEvent) else type(m) for m in engine.received]
        assert kinds[0] is HistoryRestored and kinds.index(HistoryRestored) < kinds.index(EngineReady)
        assert kinds.count(HistoryRestored) == 1
        assert engine.received[-1].state.session_id == session_id
    finally:
        engine.close()


def test_the_opening_history_is_read_without_the_engines_heavy_imports() -> None:
    """What makes it early: SQLite and the protocol only, no pydantic, no model SDK, no orchestrator."""
    import subprocess
    import sys

    probe = (
        "import sys, engine.server.opening, engine.server.host, engine.server.stdio; "
        "print(sorted(m for m in ('pydantic', 'openai', 'engine.messages', 'engine.orchestrator') if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"
