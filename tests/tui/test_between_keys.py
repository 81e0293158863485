"""Start-up work after the first frame (issue 14): ``run_between_keys`` runs its steps in order, one at a time,
awaiting what a step returns (a mount) before the next one starts."""

from __future__ import annotations

import asyncio
import time

import pytest

from textual.app import App, ComposeResult
from textual.widgets import Static

from coder_tui.runtime.between_keys import run_between_keys


class Steps(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("first frame")

    def on_mount(self) -> None:
        self.done: list[str] = []
        self.call_after_refresh(self.run_worker, self.work())

    async def work(self) -> None:
        async def slow() -> None:
            await asyncio.sleep(0)
            self.done.append("awaited")

        await run_between_keys(self.screen, [
            lambda: self.done.append("one"),
            slow,
            lambda: self.mount(Static("later", id="later")),
            lambda: self.done.append("mounted" if self.query("#later") and self.query_one("#later").is_mounted
                                     else "not mounted"),
        ])
        self.done.append("end")


async def test_steps_run_in_order_each_finished_before_the_next() -> None:
    app = Steps()
    async with app.run_test() as pilot:
        while "end" not in app.done:
            await pilot.pause(0.01)
        assert app.done == ["one", "awaited", "mounted", "end"]


def test_markdown_imports_skip_a_missing_stepping_stone_and_the_highlighter_warms(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A third-party module named as a stepping stone may be laid out differently in another release: it is
    skipped, and the widgets' own import (which must succeed) loads the rest."""
    from coder_tui.runtime import markdown_preload

    monkeypatch.setattr(markdown_preload, "STEPPING_STONES", ("no_such_module.anywhere", "markdown_it"))
    warmed: list[str] = []
    monkeypatch.setattr(markdown_preload, "warm_highlighter", lambda: warmed.append("python"))
    steps = [*markdown_preload.markdown_imports(), markdown_preload.highlighter_step()]
    for step in steps:
        step()
    assert len(steps) == 2 + len(markdown_preload.WIDGET_MODULES) + 1
    assert warmed == ["python"]


async def test_the_highlighter_waits_for_a_resumed_conversation_then_warms(monkeypatch: pytest.MonkeyPatch) -> None:
    from coder_tui.runtime import markdown_preload

    drawn = asyncio.Event()
    warmed: list[bool] = []
    monkeypatch.setattr(markdown_preload, "warm_highlighter", lambda: warmed.append(drawn.is_set()))
    waiting = asyncio.ensure_future(markdown_preload.highlighter_step(drawn.wait)())
    await asyncio.sleep(0.01)
    assert warmed == []
    drawn.set()
    await waiting
    assert warmed == [True]


class Stamped(App[None]):
    """An app that stamps its keys' arrival and its frames, as ``CoderApp`` does."""

    last_key_at = 0.0
    last_frame_at = 0.0

    def compose(self) -> ComposeResult:
        yield Static("first frame")


async def test_a_step_waits_while_a_key_that_arrived_is_not_drawn_yet() -> None:
    """Run before the key's own handling, a step delayed that very key (the keys typed right after the first echo
    waited for an import of tens of milliseconds)."""
    from coder_tui.runtime import between_keys

    app = Stamped()
    async with app.run_test() as pilot:
        ran: list[float] = []
        app.last_frame_at = time.monotonic()
        runner = asyncio.ensure_future(between_keys.run_between_keys(app.screen, [lambda: ran.append(1.0)]))
        for _ in range(10):  # keys keep arriving, none drawn yet
            app.last_key_at = time.monotonic()
            await asyncio.sleep(0.002)
            assert ran == []
        app.last_frame_at = time.monotonic()  # their frame
        await asyncio.wait_for(runner, 1.0)
        assert ran == [1.0]


async def test_a_step_too_long_for_a_gap_waits_for_the_user_to_pause() -> None:
    from coder_tui.runtime import between_keys

    app = Stamped()
    async with app.run_test() as pilot:
        ran: list[str] = []
        steps = [lambda: ran.append("short"), between_keys.WhenPaused(lambda: ran.append("long"))]
        runner = asyncio.ensure_future(between_keys.run_between_keys(app.screen, steps))
        typing_until = time.monotonic() + 2 * between_keys.LONGEST_WAIT_S
        while time.monotonic() < typing_until:  # a key every 10 ms, each drawn at once
            app.last_key_at = app.last_frame_at = time.monotonic()
            await asyncio.sleep(0.01)
        assert ran == ["short"]
        await asyncio.wait_for(runner, 1.0)  # the user paused
        assert ran == ["short", "long"]
        await pilot.pause()


async def test_a_step_too_long_for_a_gap_waits_through_the_lulls_of_a_typist_at_speed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Keys 80 ms apart are typing, not a pause: the footer's keys (30-55 ms of work) started in such a lull, and the
    next key waited for them (the pty benchmark's worst key of the first seconds, 50-55 ms)."""
    from coder_tui.runtime import between_keys

    monkeypatch.setattr(between_keys, "STOPPED_TYPING_S", 0.3)  # the app's (the suite's fixture shortens it)
    app = Stamped()
    async with app.run_test() as pilot:
        ran: list[str] = []
        steps = [between_keys.WhenPaused(lambda: ran.append("long"))]
        runner = asyncio.ensure_future(between_keys.run_between_keys(app.screen, steps))
        typing_until = time.monotonic() + 1.0
        while time.monotonic() < typing_until:  # a key every 80 ms, each drawn at once
            app.last_key_at = app.last_frame_at = time.monotonic()
            await asyncio.sleep(0.08)
        assert ran == []
        await asyncio.wait_for(runner, 2.0)  # they stopped
        assert ran == ["long"]
        await pilot.pause()
