"""A change held for the one that follows it, to be drawn with it in one frame (``hold_for_next``: a request's echo
and a fast answer; issue 32)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from textual.app import App
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Static

from coder_tui.transcript import held_mount
from coder_tui.transcript.held_mount import end_lingering, hold_for_next, hold_while
from tests.tui.helpers import after_each_layout, wait_until
from tests.tui.widget_host import Host


def _on_screen(app: App[object], *widgets: Static) -> list[bool]:
    visible = app.screen._compositor.visible_widgets
    return [widget in visible for widget in widgets]


@asynccontextmanager
async def _echo_held(seconds: float) -> AsyncIterator[tuple[Pilot[None], VerticalScroll, Static]]:
    """A pane whose "echo" was mounted as a held change, then held for the next one for ``seconds`` at most."""
    pane = VerticalScroll()
    echo = Static("echo")
    async with Host(pane).run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        hold_while(pane, lambda: [pane.mount(echo)])
        hold_for_next(pane, seconds)
        yield pilot, pane, echo


async def test_a_change_held_for_the_next_one_is_drawn_with_it(monkeypatch: pytest.MonkeyPatch) -> None:
    answer = Static("answer")
    async with _echo_held(30.0) as (pilot, pane, echo):
        layouts: list[list[bool]] = []  # after each full layout, which of the two it shows
        after_each_layout(pilot.app.screen, monkeypatch, lambda: layouts.append(_on_screen(pilot.app, echo, answer)))
        await wait_until(pilot, lambda: echo.is_mounted, "the echo mounted")
        await pilot.pause(0.1)
        assert _on_screen(pilot.app, echo) == [False]  # held
        hold_while(pane, lambda: [pane.mount(answer)])
        await wait_until(pilot, lambda: _on_screen(pilot.app, echo, answer) == [True, True], "both drawn")
        assert [True, False] not in layouts  # never the echo alone
        assert not held_mount._lingering and pilot.app._batch_count == 0


async def test_a_held_change_is_drawn_alone_when_nothing_follows_in_time() -> None:
    async with _echo_held(0.05) as (pilot, _pane, echo):
        await wait_until(pilot, lambda: _on_screen(pilot.app, echo) == [True], "the echo drawn")
        assert not held_mount._lingering and pilot.app._batch_count == 0


async def test_ending_the_wait_draws_what_it_held_at_once() -> None:
    async with _echo_held(30.0) as (pilot, _pane, echo):
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
