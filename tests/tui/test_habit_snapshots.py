"""Snapshots of the SPEC 23 views: the /rewind picker and /status (at 80x24, where space is tightest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from textual.pilot import Pilot

from coder_tui.screens.rewind_picker import RewindPickerScreen
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, submit, wait_until


class FixedAddress:
    def __init__(self, base_url: str) -> None:
        self.base_url = base_url


@pytest.mark.parametrize(("size", "keys"), [((80, 24), ()), ((80, 24), ("enter",)), ((120, 40), ("enter",))],
                         ids=["requests-80x24", "choices-80x24", "choices-120x40"])
def test_rewind_picker(
    snap_compare, workspace: Path, scripted_server: ScriptedServer, size: tuple[int, int], keys: tuple[str, ...]
) -> None:
    scripted_server.add(
        reply(tool_call("write", path="notes.md", content="notes\n")),
        reply(text("Created.")),
        reply(text("It greets the world.")),
    )
    app = make_app(workspace, scripted_server, start_mode="auto-edit")

    async def run_before(pilot: Pilot[object]) -> None:
        await ready(pilot)
        await submit(pilot, "create the notes")
        await settle(pilot)
        await submit(pilot, "what does src/app.py do?")
        await settle(pilot)
        await submit(pilot, "/rewind")
        await wait_until(pilot, lambda: isinstance(app.screen, RewindPickerScreen), "the rewind picker")
        await pilot.pause()
        await pilot.press(*keys)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_status(snap_compare, workspace: Path, monkeypatch) -> None:
    import engine.orchestrator.session as session_module

    monkeypatch.setattr(session_module, "new_session_id", lambda: "5e55101d0001")
    # /status asks the server nothing: a fixed address keeps the snapshot the same on every run.
    app = make_app(workspace, FixedAddress("http://127.0.0.1:8765/v1"))

    async def run_before(pilot: Pilot[object]) -> None:
        await ready(pilot)
        await submit(pilot, "/status")
        await settle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_custom_command_in_completion(snap_compare, workspace: Path, scripted_server: ScriptedServer) -> None:
    from engine.commands.custom import user_commands_folder

    folder = user_commands_folder({})  # the app's engine gets no XDG_CONFIG_HOME: the home folder's
    folder.mkdir(parents=True)
    (folder / "recheck.md").write_text("---\ndescription: Check a file for bugs again\nargument-hint: <file>\n---\nReview $1.\n")
    (folder / "release.md").write_text("Write the release notes since the last tag.\n")

    async def run_before(pilot: Pilot[object]) -> None:
        await ready(pilot)
        await pilot.press("slash", "r", "e")
        await pilot.pause()

    assert snap_compare(make_app(workspace, scripted_server), terminal_size=(80, 24), run_before=run_before)


def test_deny_with_reason_dialog(snap_compare, workspace: Path, scripted_server: ScriptedServer) -> None:
    from coder_tui.screens.approval import ApprovalScreen

    scripted_server.add(reply(tool_call("bash", command="rm -rf build")), reply(text("ok")))
    app = make_app(workspace, scripted_server)

    async def run_before(pilot: Pilot[object]) -> None:
        await ready(pilot)
        await submit(pilot, "clean the build")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval dialog")
        await pilot.pause()
        await pilot.press("t")
        await pilot.press(*"keep build/, it holds the release")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
