"""Issue 13 item 7: with no model configured (no key, no server URL) the first screen says so and how to configure
one; the status line does not name the default model as if it were set."""

from __future__ import annotations

from pathlib import Path

from coder_tui.app import CoderApp
from coder_tui.input.history import InputHistory
from coder_tui.widgets.notice_line import NoticeLine
from engine.config import Config
from engine.server.host import EngineOptions
from engine.server.memory import InMemoryEngine
from tests.tui.helpers import WORKSPACE_LABEL, ready


def unconfigured_app(workspace: Path) -> CoderApp:
    """The app as a fresh install starts it: default configuration, no key and no server URL in the environment."""
    options = EngineOptions(workspace=workspace, env={})
    return CoderApp(
        workspace=workspace,
        engine=lambda: InMemoryEngine(options, config=Config()),
        workspace_label=WORKSPACE_LABEL,
        history=InputHistory(None),
    )


async def test_the_first_screen_says_no_model_is_configured_and_how(workspace: Path) -> None:
    app = unconfigured_app(workspace)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.pause()
        status = app.session.status.render().plain
        assert "no model configured" in status
        assert Config().model not in status
        notices = [entry.text for entry in app.session.transcript.entries if isinstance(entry, NoticeLine)]
        assert len(notices) == 1
        assert "no model is configured" in notices[0] and "OPENAI_API_KEY" in notices[0]
        assert "CODER_MODEL" in notices[0]
