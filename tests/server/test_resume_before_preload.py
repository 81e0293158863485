"""Issue 14/18: a ``/resume`` never waits for the preload (the model SDK and the token encoding): resuming needs
neither. The preload is held forever here; the resume still completes and shows the whole history."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from engine.events import Event, HistoryRestored
from engine.messages import Message
from engine.orchestrator.orchestrator import Orchestrator
from engine.server.host import EngineHost, EngineOptions
from engine.storage.store import Store
from tests.support.fakes import make_config


class RecordingFrontend:
    def __init__(self) -> None:
        self.events: list[Event] = []
        self.finished: list[tuple[str, Any]] = []

    def event(self, event: Event, session_id: str | None = None) -> None:
        self.events.append(event)

    def input_started(self, input_id: str) -> None:
        pass

    def input_finished(self, input_id: str, outcome: Any) -> None:
        self.finished.append((input_id, outcome))

    async def request_approval(self, request: Any) -> Any:
        raise AssertionError("no approval expected")

    async def ask_question(self, request: Any) -> Any:
        raise AssertionError("no question expected")


@pytest.mark.parametrize("queued_before_start", [True, False], ids=["queued-at-launch", "sent-after-start"])
async def test_a_resume_runs_while_the_preload_is_still_loading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, queued_before_start: bool
) -> None:
    store = Store.open(tmp_path, environ={})
    session_id = store.sessions.create(model="scripted-model", mode="default")
    store.conversation.append(session_id, Message.user("an earlier request"))
    store.conversation.append(session_id, Message.assistant("an earlier answer"))
    store.close()

    never = asyncio.Event()

    async def held_preload(self: Orchestrator) -> None:
        await never.wait()

    monkeypatch.setattr(Orchestrator, "preload", held_preload)
    frontend = RecordingFrontend()
    host = EngineHost(
        EngineOptions(workspace=tmp_path, env={"OPENAI_API_KEY": "sk-test"}),
        frontend,  # type: ignore[arg-type]
        config=make_config("http://127.0.0.1:9/v1"),
    )
    try:
        if queued_before_start:
            host.submit("1", f"/resume {session_id}")
        await host.start()
        if not queued_before_start:
            host.submit("1", f"/resume {session_id}")
        for _ in range(500):
            if frontend.finished:
                break
            await asyncio.sleep(0.01)
        assert [(input_id, outcome.reason) for input_id, outcome in frontend.finished] == [("1", "completed")]
        (restored,) = [e for e in frontend.events if isinstance(e, HistoryRestored)]
        assert [e.record["content"] for e in restored.entries()] == ["an earlier request", "an earlier answer"]
        assert host.orchestrator is not None and host.orchestrator.session_id == session_id
    finally:
        await host.aclose()
