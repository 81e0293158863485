"""SPEC 19 in the TUI: on first opening a folder whose own config sets power-widening keys, the engine asks "Trust
this folder?" through the interaction handler; the answer is remembered and, after "trust", the keys apply."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.pilot import Pilot

from coder_tui.app import CoderApp
from coder_tui.screens.trust import TrustScreen
from coder_tui.widgets.notice_line import NoticeLine
from engine.interaction import TrustRequest
from engine.server.host import EngineOptions
from engine.server.memory import InMemoryEngine
from tests.support.scripted_server import ScriptedServer
from coder_tui.input.history import InputHistory
from tests.tui.helpers import SIZE_IDS, SIZES, WORKSPACE_LABEL, make_app, ready, wait_until


def untrusted_app(workspace: Path, server: ScriptedServer) -> CoderApp:
    xdg = workspace.parent / "xdg"
    if not (xdg / "coder").exists():
        (xdg / "coder").mkdir(parents=True)
        (xdg / "coder" / "config.json").write_text(json.dumps({"model": "m", "provider": {"base_url": server.base_url}}))
    (workspace / ".coder").mkdir(exist_ok=True)
    (workspace / ".coder" / "config.json").write_text(json.dumps({"mode": "yolo", "auto_approve_ask": True}))
    options = EngineOptions(workspace=workspace, env={"OPENAI_API_KEY": "sk-test-key", "XDG_CONFIG_HOME": str(xdg)})
    return CoderApp(
        workspace=workspace,
        engine=lambda: InMemoryEngine(options),
        workspace_label=WORKSPACE_LABEL,
        history=InputHistory(None),
    )


def user_config(workspace: Path) -> dict[str, object]:
    return json.loads((workspace.parent / "xdg" / "coder" / "config.json").read_text())  # type: ignore[no-any-return]


@pytest.mark.parametrize(("key", "mode", "listed"), [("t", "yolo", "trusted_folders"), ("d", "default",
                                                                                         "untrusted_folders")])
async def test_first_open_asks_and_the_answer_applies_and_is_remembered(
    workspace: Path, scripted_server: ScriptedServer, key: str, mode: str, listed: str
) -> None:
    app = untrusted_app(workspace, scripted_server)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TrustScreen), "the trust dialog")
        assert isinstance(app.screen, TrustScreen)
        assert app.screen.request.keys == ("mode", "auto_approve_ask")
        await wait_until(pilot, lambda: any(b.region.width > 0 for b in app.screen.query("#trust")), "the dialog's layout")
        await pilot.press(key)
        await wait_until(pilot, lambda: app.link.state is not None, "the engine to load")
        assert app.link.mode.value == mode
        notices = [str(n.render()) for n in app.session.transcript.query(NoticeLine)]
        assert any("not trusted" in n for n in notices) is (key == "d")
    assert user_config(workspace)[listed] == [str(workspace.resolve())]
    again = untrusted_app(workspace, scripted_server)
    async with again.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: again.link.state is not None, "the engine to load")
        assert not isinstance(again.screen, TrustScreen)
        assert again.link.mode.value == mode


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_trust_dialog(snap_compare, workspace: Path, scripted_server: ScriptedServer, size) -> None:
    request = TrustRequest(
        folder="~/demo-project",
        config_file="~/demo-project/.coder/config.json",
        keys=("provider", "mode", "permissions", "workflow.verify_commands"),
    )

    async def run_before(pilot: Pilot[object]) -> None:
        app = await ready(pilot)
        await app.push_screen(TrustScreen(request))
        await pilot.pause()

    assert snap_compare(make_app(workspace, scripted_server), terminal_size=size, run_before=run_before)
