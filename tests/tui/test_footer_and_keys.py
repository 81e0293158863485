"""The footer and the keys while a task runs (issue 14): the footer's keys are rebuilt only where they changed (not
when a task starts or ends); a lone Esc byte is reported once the escape wait is over, not at the input thread's
next poll."""

from __future__ import annotations

import os
import selectors
from pathlib import Path

import pytest
from textual import constants, events
from textual.widgets._footer import FooterKey

from coder_tui.app import CoderApp
from coder_tui.input.input_driver import IDLE_SELECT_S, PromptEscapeDriver
from coder_tui.widgets.footer_bar import FooterBar
from tests.support.scenario import reply, stall, text
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, submit, wait_until


def footer_keys(app: CoderApp) -> dict[str, FooterKey]:
    return {key.key: key for key in app.session.query_one(FooterBar).query(FooterKey)}


async def test_footer_keys_are_not_rebuilt_when_a_task_starts_and_ends(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(stall(after=reply(text("Thinking")), seconds=30))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        idle = footer_keys(app)
        assert {"enter", "ctrl+j", "shift+tab"} <= idle.keys()
        await submit(pilot, "long task")
        await wait_until(pilot, lambda: app.link.busy, "the task to run")
        await pilot.pause()
        assert footer_keys(app) == idle
        await pilot.press("escape")
        await settle(pilot)
        after = footer_keys(app)
        assert after == idle and all(after[key] is widget for key, widget in idle.items())


async def test_footer_mounts_only_the_key_that_changed(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        footer = app.session.query_one(FooterBar)
        before = list(footer.children)
        items = list(footer._footer_items())
        extra = ("key", (("f9", "F9", "Extra", "app.bell", True, ""),), "", False)
        footer._footer_items = lambda: iter([*items[:3], extra, *items[3:]])  # type: ignore[method-assign]
        footer._update_keys()
        await pilot.pause()
        shown = [key.key for key in footer.query(FooterKey)]
        assert shown[shown.index("f9") - 1] == items[2][1][-1][0]
        assert [child for child in footer.children if child not in before] == [footer_keys(app)["f9"]]
        footer._footer_items = lambda: iter(items)  # type: ignore[method-assign]
        footer._update_keys()
        await pilot.pause()
        assert list(footer.children) == before


async def test_new_footer_keys_are_drawn_in_one_frame_once_all_of_them_are_mounted(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    """A group's keys mount a turn after the group: drawn as they mounted, the footer took five layouts of the
    screen right after the first frame, while the first keys typed waited. The screen's updates are held until the
    new keys are mounted (``held_mount``)."""
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        footer = app.session.query_one(FooterBar)
        items = list(footer._footer_items())
        group = ("group", (("f7", "F7", "One", "app.bell", True, ""), ("f8", "F8", "Two", "app.bell", True, "")),
                 "Both", False)
        footer._footer_items = lambda: iter([group, *items])  # type: ignore[method-assign]
        footer._update_keys()
        assert app._batch_count > 0
        await wait_until(pilot, lambda: {"f7", "f8"} <= footer_keys(app).keys(), "the new keys")
        await wait_until(pilot, lambda: app._batch_count == 0, "the screen's updates to be released")
        assert all(key.is_mounted for key in footer_keys(app).values())


async def test_the_footer_shows_its_keys_once_the_user_pauses_not_while_keys_come_after_the_first_frame(
    workspace: Path, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Built right after the first frame, the footer's keys (a dozen widgets, their layout) held up the first keys
    typed; the footer shows them once the user pauses."""
    from coder_tui.runtime import between_keys

    monkeypatch.setattr(between_keys, "STOPPED_TYPING_S", 3600.0)  # the user never stops
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("h", "i")
        await pilot.pause(0.2)
        assert footer_keys(app) == {}
        monkeypatch.setattr(between_keys, "STOPPED_TYPING_S", 0.05)  # now they do
        await wait_until(pilot, lambda: {"enter", "ctrl+j", "shift+tab"} <= footer_keys(app).keys(), "the keys")


def test_a_lone_escape_is_reported_when_its_wait_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    """The input thread selects until the escape wait is due (not for its idle poll) while an Esc is pending."""
    waits: list[float | None] = []
    received: list[object] = []
    read_end, write_end = os.pipe()

    class RecordingSelector(selectors.SelectSelector):
        def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
            waits.append(timeout)
            return super().select(timeout)

    monkeypatch.setattr(selectors, "SelectSelector", RecordingSelector)
    driver = PromptEscapeDriver.__new__(PromptEscapeDriver)
    driver.fileno = read_end
    driver._debug = False
    driver.exit_event = __import__("threading").Event()

    def process_message(message: object) -> None:
        received.append(message)
        driver.exit_event.set()

    driver.process_message = process_message  # type: ignore[method-assign]
    os.write(write_end, b"\x1b")
    try:
        driver.run_input_thread()
    finally:
        os.close(read_end)
        os.close(write_end)
    assert [getattr(message, "key", None) for message in received] == ["escape"]
    assert isinstance(received[0], events.Key)
    assert waits[0] == IDLE_SELECT_S  # nothing pending before the byte
    assert all(wait is not None and wait <= constants.ESCAPE_DELAY + 0.001 for wait in waits[1:-1])
