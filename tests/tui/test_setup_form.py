"""Issue 43 item 9: with no model configured, the advice names the user's own config (a folder's is ignored until it
is trusted) and ``/setup``; ``/setup`` opens a form for the server URL and model whose "Test" lists the server's
models, and whose "Save" writes the user's config and applies it at once."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Static

from coder_tui.app import CoderApp
from coder_tui.input.history import InputHistory
from coder_tui.screens.setup import SetupScreen
from coder_tui.widgets.notice_line import NoticeLine
from engine.config import Config
from engine.config.paths import user_config_path
from engine.server.host import EngineOptions
from engine.server.memory import InMemoryEngine
from tests.headless.test_headless_cli import run_cli
from tests.support.scenario import text
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import WORKSPACE_LABEL, ready, settle, submit, wait_until


def unconfigured_app(workspace: Path) -> CoderApp:
    """A fresh install: no key, no server URL, the user's config folder empty (the test's XDG_CONFIG_HOME)."""
    options = EngineOptions(workspace=workspace, env={"XDG_CONFIG_HOME": os.environ["XDG_CONFIG_HOME"]})
    return CoderApp(
        workspace=workspace, engine=lambda: InMemoryEngine(options), timer=lambda: 0.0,
        workspace_label=WORKSPACE_LABEL, history=InputHistory(None),
    )


async def open_form(pilot: Pilot[object]) -> SetupScreen:
    app = pilot.app
    await ready(pilot)
    await submit(pilot, "/setup")
    await wait_until(pilot, lambda: isinstance(app.screen, SetupScreen), "the setup form")
    assert isinstance(app.screen, SetupScreen)
    return app.screen


async def test_the_form_tests_the_server_and_saves_the_users_config(workspace: Path) -> None:
    with ScriptedServer([text("Hello from the local model.")], models=("qwen3:8b",)) as server:
        app = unconfigured_app(workspace)
        async with app.run_test(size=(100, 30)) as pilot:
            await ready(pilot)
            notices = [entry.text for entry in app.session.transcript.entries if isinstance(entry, NoticeLine)]
            assert str(user_config_path({})) in notices[0] and "/setup" in notices[0]
            assert app.session.status.model_missing
            form = await open_form(pilot)
            form.query_one("#url", Input).value = server.base_url
            await pilot.click("#test")
            await wait_until(pilot, lambda: form.query_one("#model", Input).value == "qwen3:8b", "the test's answer")
            assert "lists 1 model: qwen3:8b" in str(form.query_one("#result", Static).render())
            await pilot.click("#save")
            await settle(pilot)
            assert app.session.status.model == "qwen3:8b" and not app.session.status.model_missing
            await submit(pilot, "hello")
            await settle(pilot)
        saved = json.loads(user_config_path({}).read_text())
        assert saved == {"provider": {"base_url": server.base_url}, "model": "qwen3:8b"}
    assert server.requests[-1].body["model"] == "qwen3:8b"


async def test_a_server_that_is_not_there_is_said_so(workspace: Path, refused_port: int) -> None:
    app = unconfigured_app(workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        form = await open_form(pilot)
        form.query_one("#url", Input).value = f"http://127.0.0.1:{refused_port}/v1"
        await pilot.click("#test")
        result = form.query_one("#result", Static)
        await wait_until(pilot, lambda: "did not answer" in str(result.render()), "the failed test")
        assert result.has_class("-failed")
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, SetupScreen)
    assert not user_config_path({}).exists()


def test_setup_form_snapshot(snap_compare, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.commands.setup as setup
    import engine.provider.factory as factory

    for module in (setup, factory):  # the no-model notice behind the form names the file too
        monkeypatch.setattr(module, "user_config_path", lambda env: Path("/home/dev/.config/coder/config.json"))

    async def run_before(pilot: Pilot[object]) -> None:
        form = await open_form(pilot)
        form.query_one("#url", Input).value = "http://localhost:11434/v1"
        await pilot.pause()

    assert snap_compare(unconfigured_app(workspace), terminal_size=(100, 30), run_before=run_before)


def test_untrusted_folder_advice_points_at_the_users_config(tmp_path: Path) -> None:
    workspace = tmp_path / "home" / "project"
    (workspace / ".coder").mkdir(parents=True)
    (workspace / ".coder" / "config.json").write_text(json.dumps({"provider": {"base_url": "http://10.0.0.1/v1"}}))
    done = run_cli(["-p", "hello"], workspace, None)
    assert done.returncode == 1
    assert "ignored provider" in done.stderr
    config_file = workspace / ".xdg" / "coder" / "config.json"
    assert f"set provider.base_url and model in your config, {config_file} (/setup does it" in done.stderr
    assert "provider.base_url in .coder/config.json" not in done.stderr


def test_headless_setup_saves_the_server_for_every_folder(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    workspace = tmp_path / "home" / "project"
    workspace.mkdir(parents=True)
    done = run_cli(["-p", f"/setup {scripted_server.base_url} scripted-model"], workspace, None)
    assert done.returncode == 0, done.stderr
    scripted_server.add(text("Hi."))
    after = run_cli(["-p", "hello"], workspace, None)
    assert after.returncode == 0, after.stderr
    assert after.stdout.strip() == "Hi." and scripted_server.requests[-1].body["model"] == "scripted-model"
