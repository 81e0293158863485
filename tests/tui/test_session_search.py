"""SPEC 27: the ``/resume`` picker searches every message as you type (matches highlighted, this folder first, every
folder with Ctrl+A), ``/resume <words>`` opens it searching, Ctrl+R and ``/rename`` rename a session."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList

from coder_tui.screens.session_picker import SessionPickerScreen
from engine.messages import Message
from engine.storage.db import Database, database_path
from engine.storage.provenance import StateKey
from engine.storage.sessions.seals import SessionSeals
from engine.storage.store import Store
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import SIZE_IDS, SIZES, make_app, ready, settle, submit, wait_until

NOW = datetime(2026, 11, 21, 11, 0, tzinfo=timezone.utc)
CONVERSATIONS = [
    ("Fix the off-by-one in the pager", "2026-11-21T09:31:00+00:00",
     ["The pager skips the last line when the page is full.", "I changed the loop bound in pager.py."]),
    ("Add a --json flag to the export command", "2026-11-20T18:02:00+00:00",
     ["export should print JSON", "Added the flag; the pager is not involved."]),
    ("Why does the build fail on CI?", "2026-11-19T14:05:00+00:00",
     ["the build fails", "A flaky socket test: it waits on port 8080."]),
]


def write_conversations(workspace: Path, conversations: Sequence[tuple[str, str, list[str]]]) -> list[str]:
    """Each (title, last used, [request, answer]) as a session of this user, written at its own fixed time."""
    seals = SessionSeals(StateKey.load(), workspace)
    ids = []
    for index, (title, when, (request, answer)) in enumerate(conversations):
        store = Store(Database.open(database_path(workspace)), clock=lambda when=when: when, seals=seals)
        try:
            session_id = store.sessions.create(model="m", mode="default", session_id=f"session{index:05d}", title=title)
            store.conversation.append(session_id, Message.user(request))
            store.conversation.append(session_id, Message.assistant(answer))
        finally:
            store.close()
        ids.append(session_id)
    return ids


def shown(picker: SessionPickerScreen) -> list[str]:
    return [str(option.prompt).partition("\n")[0] for option in picker.query_one("#sessions", OptionList).options]


async def open_picker(pilot: Pilot[object], command: str = "/resume") -> SessionPickerScreen:
    app = pilot.app
    await submit(pilot, command)
    await settle(pilot)
    await wait_until(pilot, lambda: isinstance(app.screen, SessionPickerScreen), "the session picker")
    assert isinstance(app.screen, SessionPickerScreen)
    return app.screen


async def searched(pilot: Pilot[object]) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_typing_narrows_the_picker_to_the_sessions_that_mention_the_words(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    write_conversations(workspace, CONVERSATIONS)
    app = make_app(workspace, scripted_server, clock=lambda: NOW)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        picker = await open_picker(pilot)
        assert len(shown(picker)) == 3
        await pilot.press(*"pager")
        await searched(pilot)
        assert shown(picker) == ["Fix the off-by-one in the pager", "Add a --json flag to the export command"]
        options = picker.query_one("#sessions", OptionList).options
        assert str(options[1].prompt).endswith("Added the flag; the pager is not involved.")
        await pilot.press("space", *"flaky")
        await searched(pilot)
        assert shown(picker) == []
        await pilot.press(*["backspace"] * 12)
        await pilot.press(*"flaky")
        await searched(pilot)
        assert shown(picker) == ["Why does the build fail on CI?"]
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, SessionPickerScreen)
        texts = [getattr(entry, "text", "") for entry in app.session.transcript.entries]
        assert "the build fails" in texts


async def test_resume_with_words_opens_the_picker_searching_them(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    write_conversations(workspace, CONVERSATIONS)
    app = make_app(workspace, scripted_server, clock=lambda: NOW)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        picker = await open_picker(pilot, "/resume socket test")
        await searched(pilot)
        assert picker.query_one("#query", Input).value == "socket test"
        assert shown(picker) == ["Why does the build fail on CI?"]


async def test_ctrl_a_adds_the_sessions_of_other_folders_after_this_ones(
    tmp_path: Path, workspace: Path, scripted_server: ScriptedServer
) -> None:
    other = tmp_path / "other-project"
    other.mkdir()
    Store.open(other).close()  # coder-tui ran there: the folder is remembered
    store = Store.open(other)
    elsewhere = store.sessions.create(model="m", mode="default", title="Pager in the other project")
    store.conversation.append(elsewhere, Message.user("the pager again"))
    store.close()
    write_conversations(workspace, CONVERSATIONS)
    app = make_app(workspace, scripted_server, clock=lambda: NOW)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        picker = await open_picker(pilot)
        await pilot.press(*"pager")
        await searched(pilot)
        assert len(shown(picker)) == 2
        await pilot.press("ctrl+a")
        await searched(pilot)
        assert shown(picker) == [
            "Fix the off-by-one in the pager", "Add a --json flag to the export command", "Pager in the other project",
        ]
        assert "other-project" in str(picker.query_one("#sessions", OptionList).options[2].prompt)
        await pilot.press("ctrl+a")
        await searched(pilot)
        assert len(shown(picker)) == 2


async def test_ctrl_r_renames_the_highlighted_session_and_the_new_title_is_searchable(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    write_conversations(workspace, CONVERSATIONS)
    app = make_app(workspace, scripted_server, clock=lambda: NOW)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        picker = await open_picker(pilot)
        await pilot.press("down", "ctrl+r")
        field = picker.query_one("#query", Input)
        assert field.value == "Add a --json flag to the export command"
        field.value = ""
        await pilot.press(*"Export flag work", "enter")
        await settle(pilot)
        assert shown(picker)[1] == "Export flag work"
        await pilot.press("escape")
        await settle(pilot)
        picker = await open_picker(pilot, "/resume work")
        await searched(pilot)
        assert shown(picker) == ["Export flag work"]


async def test_rename_command_titles_the_session_in_view(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "!echo hi")
        await settle(pilot)
        await submit(pilot, "/rename   Release   checklist ")
        await settle(pilot)
        picker = await open_picker(pilot)
        assert [row["title"] for row in picker.sessions] == ["Release checklist"]


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_resume_picker_with_a_search(snap_compare, workspace: Path, scripted_server: ScriptedServer, size) -> None:
    write_conversations(workspace, CONVERSATIONS)

    async def run_before(pilot: Pilot[object]) -> None:
        await ready(pilot)
        await open_picker(pilot)
        await pilot.press(*"pager")
        await searched(pilot)

    app = make_app(workspace, scripted_server, clock=lambda: NOW)
    assert snap_compare(app, terminal_size=size, run_before=run_before)
