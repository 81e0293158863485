"""Issue 43 items 4 and 5 in the full screen: with only a server URL and several models on the server, the ``/model``
picker opens by itself; with one, it is used; the status line shows the window the server reports once it has
answered, and the first turn uses it."""

from __future__ import annotations

from pathlib import Path

from coder_tui.app import CoderApp
from coder_tui.input.history import InputHistory
from coder_tui.screens.model_picker import ModelPickerScreen
from coder_tui.widgets.notice_line import NoticeLine
from engine.config import Config
from engine.server.host import EngineOptions
from engine.server.memory import InMemoryEngine
from tests.support.scenario import text
from tests.support.scripted_server import ScriptedServer, vllm_models
from tests.tui.helpers import WORKSPACE_LABEL, ready, settle, submit, wait_until


def url_only_app(workspace: Path, server: ScriptedServer) -> CoderApp:
    """The app with a configuration that names the server and no model."""
    options = EngineOptions(workspace=workspace, env={"OPENAI_API_KEY": "sk-test-key"})
    config = Config.model_validate({"provider": {"base_url": server.base_url}})
    return CoderApp(
        workspace=workspace, engine=lambda: InMemoryEngine(options, config=config), timer=lambda: 0.0,
        workspace_label=WORKSPACE_LABEL, history=InputHistory(None),
    )


def serve_vllm(server: ScriptedServer, *models: str, window: int = 65_536) -> None:
    server.answer("GET", "/v1/models", vllm_models(models, window))


async def test_several_models_open_the_picker_and_the_choice_is_used(workspace: Path) -> None:
    with ScriptedServer([text("Hi.")]) as server:
        serve_vllm(server, "qwen3-coder", "llama-3.3-70b")
        app = url_only_app(workspace, server)
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen), "the model picker")
            assert app.screen.models == ["qwen3-coder", "llama-3.3-70b"]
            await pilot.press("down", "enter")
            await settle(pilot)
            assert app.session.status.model == "llama-3.3-70b"
            await submit(pilot, "hello")
            await settle(pilot)
    assert server.requests[-1].body["model"] == "llama-3.3-70b"


async def test_a_prompt_before_choosing_is_told_to_choose(workspace: Path) -> None:
    with ScriptedServer() as server:
        serve_vllm(server, "qwen3-coder", "llama-3.3-70b")
        app = url_only_app(workspace, server)
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            await wait_until(pilot, lambda: isinstance(app.screen, ModelPickerScreen), "the model picker")
            await pilot.press("escape")
            await submit(pilot, "hello")
            await settle(pilot)
            shown = "\n".join(entry.text for entry in app.session.transcript.entries if isinstance(entry, NoticeLine))
            assert "the server lists 2 (qwen3-coder, llama-3.3-70b): choose one with /model" in shown
    assert server.requests == []


async def test_the_only_model_and_the_servers_window_are_shown_and_used(workspace: Path) -> None:
    with ScriptedServer([text("Hi.")]) as server:
        serve_vllm(server, "qwen3-coder", window=40_960)
        app = url_only_app(workspace, server)
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            await wait_until(pilot, lambda: app.session.status.model == "qwen3-coder", "the server's model")
            await wait_until(pilot, lambda: app.session.status.context_window == 40_960, "the server's window")
            await submit(pilot, "hello")
            await settle(pilot)
            assert app.session.status.context_window == 40_960
    assert server.requests[-1].body["model"] == "qwen3-coder"
