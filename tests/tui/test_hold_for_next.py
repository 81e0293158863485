"""A change held for the one that follows it, to be drawn with it in one frame (``hold_for_next``: a request's echo
and a fast answer; issue 32)."""

from __future__ import annotations

import asyncio

import pytest
from textual.app import App
from textual.containers import VerticalScroll
from textual.widgets import Static

from coder_tui import held_mount
from coder_tui.held_mount import end_lingering, hold_for_next, hold_while
from tests.tui.helpers import wait_until
from tests.tui.widget_host import Host


def _on_screen(app: App[object], *widgets: Static) -> list[bool]:
    visible = app.screen._compositor.visible_widgets
    return [widget in visible for widget in widgets]


async def _recording_layouts(pilot: object, monkeypatch: pytest.MonkeyPatch, *widgets: Static) -> list[list[bool]]:
    """After each full layout of the screen, which of ``widgets`` it shows."""
    app = pilot.app  # type: ignore[attr-defined]
    screen = app.screen
    original = screen._refresh_layout
    layouts: list[list[bool]] = []

    def recorded(*args: object, **kwargs: object) -> None:
        original(*args, **kwargs)  # type: ignore[arg-type]
        layouts.append(_on_screen(app, *widgets))

    monkeypatch.setattr(screen, "_refresh_layout", recorded)
    return layouts


async def test_a_change_held_for_the_next_one_is_drawn_with_it(monkeypatch: pytest.MonkeyPatch) -> None:
    pane = VerticalScroll()
    echo, answer = Static("echo"), Static("answer")
    async with Host(pane).run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        layouts = await _recording_layouts(pilot, monkeypatch, echo, answer)
        hold_while(pane, lambda: [pane.mount(echo)])
        hold_for_next(pane, 30.0)
        await wait_until(pilot, lambda: echo.is_mounted, "the echo mounted")
        await pilot.pause(0.1)
        assert _on_screen(pilot.app, echo) == [False]  # held
        hold_while(pane, lambda: [pane.mount(answer)])
        await wait_until(pilot, lambda: _on_screen(pilot.app, echo, answer) == [True, True], "both drawn")
        assert [True, False] not in layouts  # never the echo alone
        assert not held_mount._lingering and pilot.app._batch_count == 0


async def test_a_held_change_is_drawn_alone_when_nothing_follows_in_time(monkeypatch: pytest.MonkeyPatch) -> None:
    pane = VerticalScroll()
    echo = Static("echo")
    async with Host(pane).run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        hold_while(pane, lambda: [pane.mount(echo)])
        hold_for_next(pane, 0.05)
        await wait_until(pilot, lambda: _on_screen(pilot.app, echo) == [True], "the echo drawn")
        assert not held_mount._lingering and pilot.app._batch_count == 0


async def test_ending_the_wait_draws_what_it_held_at_once() -> None:
    pane = VerticalScroll()
    echo = Static("echo")
    async with Host(pane).run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        hold_while(pane, lambda: [pane.mount(echo)])
        hold_for_next(pane, 30.0)
        await pilot.pause(0.05)
        assert _on_screen(pilot.app, echo) == [False]
        end_lingering(pilot.app)  # the input ended: nothing more is coming
        end_lingering(pilot.app)  # and again: nothing to end
        await wait_until(pilot, lambda: _on_screen(pilot.app, echo) == [True], "the echo drawn")
        assert pilot.app._batch_count == 0


async def test_a_second_wait_replaces_the_first() -> None:
    pane = VerticalScroll()
    async with Host(pane).run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        hold_for_next(pane, 30.0)
        hold_for_next(pane, 0.02)
        assert pilot.app._batch_count == 1
        await asyncio.sleep(0.05)
        assert pilot.app._batch_count == 0 and not held_mount._lingering
