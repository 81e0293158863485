"""Issue 43 item 8: sessions are marked by where they were made. The full screen's ``--continue`` takes its own latest
session, never a later headless run (headless ``--continue`` takes the latest of any kind), and the ``/resume``
picker names headless and editor sessions and hides the headless ones on Ctrl+T."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import OptionList

from coder_tui.screens.session_picker import SessionPickerScreen
from tests.headless.test_headless_cli import run_cli
from tests.support.pty_app import PtyApp
from tests.support.scenario import text
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, submit, wait_until, write_sessions
from tests.tui.test_command_line import project

NOW = datetime(2026, 1, 15, 12, 0, tzinfo=timezone.utc)
SESSIONS = [
    ("refactor the parser", "2026-01-15T09:00:00+00:00", 6),
    ("-p summarise the diff", "2026-01-15T10:00:00+00:00", 2),
    ("explain the build from the editor", "2026-01-15T11:00:00+00:00", 4),
]
ORIGINS = ("tui", "headless", "acp")


async def open_picker(pilot: Pilot[object]) -> SessionPickerScreen:
    app = pilot.app
    await ready(pilot)
    await submit(pilot, "/resume")
    await wait_until(pilot, lambda: isinstance(app.screen, SessionPickerScreen), "the picker")
    assert isinstance(app.screen, SessionPickerScreen)
    return app.screen


async def test_the_picker_names_the_origin_and_hides_headless_runs(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    ids = write_sessions(workspace, SESSIONS, ORIGINS)
    app = make_app(workspace, scripted_server, clock=lambda: NOW)
    async with app.run_test(size=(100, 30)) as pilot:
        picker = await open_picker(pilot)
        options = picker.query_one(OptionList)
        shown = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert [i for i in range(3) if "· headless" in shown[i]] == [1] and "· editor" in shown[0]
        assert "headless" not in shown[2] and "editor" not in shown[2]
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert [options.get_option_at_index(i).id for i in range(options.option_count)] == [ids[2], ids[0]]
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert options.option_count == 3


def test_picker_with_origins_snapshot(snap_compare, workspace: Path, scripted_server: ScriptedServer) -> None:
    write_sessions(workspace, SESSIONS, ORIGINS)

    async def run_before(pilot: Pilot[object]) -> None:
        await open_picker(pilot)
        await pilot.press("ctrl+t")
        await pilot.pause()

    app = make_app(workspace, scripted_server, clock=lambda: NOW)
    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)


def test_continue_in_the_full_screen_skips_a_later_headless_run(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    workspace, home = project(tmp_path)
    scripted_server.add(text("Parser refactored."))
    with PtyApp(workspace, scripted_server.base_url, home, args=("refactor the parser",)) as app:
        app.wait_shown("Parser refactored.")
        app.type("\x04")
        assert app.wait_exit() == 0
    scripted_server.add(text("A throwaway answer."))
    assert run_cli(["-p", "a throwaway question"], workspace, scripted_server).returncode == 0

    with PtyApp(workspace, scripted_server.base_url, home, args=("-c",)) as app:
        app.wait_shown("Parser refactored.")
        assert "throwaway" not in app.text()

    scripted_server.add(text("Continued."))
    done = run_cli(["-c", "-p", "and then?"], workspace, scripted_server)
    assert done.returncode == 0, done.stderr
    contents = [m["content"] for m in scripted_server.requests[-1].body["messages"] if m["role"] == "user"]
    assert contents[-2].endswith("a throwaway question")
