"""SPEC 27: Ctrl+F searches the transcript: the newest match first, Up for older ones, Down for newer, the entry
marked and scrolled to, and older parts of a long conversation (not built, or pruned) built as the search needs."""

from __future__ import annotations

from pathlib import Path

from coder_tui.screens.transcript_find import FOUND_CLASS, TranscriptFindScreen, entry_text
from tests.support.scenario import reply, text
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, submit, wait_until


async def open_find(pilot, words: str) -> TranscriptFindScreen:  # type: ignore[no-untyped-def]
    await pilot.press("ctrl+f")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, TranscriptFindScreen), "the find bar")
    await pilot.press(*words)
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, TranscriptFindScreen)
    return screen


def found(screen: TranscriptFindScreen) -> str:
    assert screen.current is not None and screen.current.has_class(FOUND_CLASS)
    return entry_text(screen.current)


async def test_ctrl_f_finds_the_newest_match_and_walks_to_older_and_newer_ones(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(*(reply(text(f"answer {n}: the widget count is {n}")) for n in range(3)))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        for n in range(3):
            await submit(pilot, f"question {n}")
            await settle(pilot)
        screen = await open_find(pilot, "widget count")
        assert found(screen).startswith("answer 2") and str(screen.query_one("#count").render()) == "3 of 3"
        await pilot.press("up")
        assert found(screen).startswith("answer 1")
        await pilot.press("enter")
        assert found(screen).startswith("answer 0")
        await pilot.press("up")
        assert found(screen).startswith("answer 0") and "no more" in str(screen.query_one("#count").render())
        await pilot.press("down")
        assert found(screen).startswith("answer 1")
        marked = screen.current
        await pilot.press("escape")
        assert not marked.has_class(FOUND_CLASS)


async def test_ctrl_f_reaches_the_pruned_part_of_a_long_conversation(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    exchanges = 30
    scripted_server.add(*(reply(text(f"reply {n}\n\n" + "filler line\n\n" * 12)) for n in range(exchanges)))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "the needle is here")
        await settle(pilot)
        for n in range(1, exchanges):
            await submit(pilot, f"question {n}")
            await settle(pilot)
        transcript = app.session.transcript
        assert not any("needle" in entry_text(entry) for entry in transcript.entries)  # pruned
        screen = await open_find(pilot, "needle")
        assert screen.matches == [], (transcript._elided, transcript.older_count)
        await pilot.press("up")
        await pilot.pause()
        assert found(screen) == "the needle is here"
        assert screen.current in transcript.entries
