"""Start-up work after the first frame (issue 14): ``run_between_keys`` runs its steps in order, one at a time,
awaiting what a step returns (a mount) before the next one starts."""

from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult
from textual.widgets import Static

from coder_tui.between_keys import run_between_keys


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
