"""Issue 14: an input typed at launch does not wait behind the background work (the token encoding's load, the
skill and MCP watchers: watchfiles' import and the first skill reload are event-loop time): it starts once the input
has run. With nothing waiting it starts as soon as the preload is done."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from engine.orchestrator.orchestrator import Orchestrator
from engine.server.host import EngineHost, EngineOptions
from tests.server.test_resume_before_preload import RecordingFrontend
from tests.support.fakes import make_config
from tests.support.scenario import reply, text
from tests.support.scripted_server import ScriptedServer


def watching(orchestrator: Orchestrator | None) -> bool:
    return orchestrator is not None and orchestrator.skills._task is not None


async def until(condition: Any, timeout: float = 20.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


async def test_watchers_start_after_an_input_queued_at_launch(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("Hello.")))
    frontend = RecordingFrontend()
    host = EngineHost(
        EngineOptions(workspace=tmp_path, env={"OPENAI_API_KEY": "sk-test"}),
        frontend,  # type: ignore[arg-type]
        config=make_config(scripted_server.base_url),
    )
    watching_at_request: list[bool] = []
    original = scripted_server.record

    def record(request: Any) -> None:
        if request.path.endswith("/chat/completions"):  # not the server probe the turn waits for first
            watching_at_request.append(watching(host.orchestrator))
        original(request)

    scripted_server.record = record  # type: ignore[method-assign]
    try:
        host.submit("i1", "hi")
        await host.start()
        await until(lambda: frontend.finished)
        assert watching_at_request == [False]
        await until(lambda: watching(host.orchestrator))
    finally:
        await host.aclose()


async def test_watchers_start_after_the_preload_when_nothing_waits(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    host = EngineHost(
        EngineOptions(workspace=tmp_path, env={"OPENAI_API_KEY": "sk-test"}),
        RecordingFrontend(),  # type: ignore[arg-type]
        config=make_config(scripted_server.base_url),
    )
    try:
        await host.start()
        await until(lambda: watching(host.orchestrator))
    finally:
        await host.aclose()
