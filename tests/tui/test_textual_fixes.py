"""Textual's faults the app works around (``coder_tui.textual_fixes``), each checked by what it kept alive."""

from __future__ import annotations

import gc
import weakref

from textual.app import App, ComposeResult
from textual.color import Color
from textual.containers import Vertical
from textual.widgets import Label

import coder_tui.textual_fixes  # noqa: F401
from textual._styles_cache import StylesCache


class Cards(App[None]):
    CSS = "Label { background: $panel; }"

    def compose(self) -> ComposeResult:
        yield Vertical(id="cards")


async def test_removed_widgets_leave_nothing_they_drew_behind() -> None:
    app = Cards()
    caches: list[weakref.ref[StylesCache]] = []
    async with app.run_test(size=(40, 20)) as pilot:
        cards = app.query_one("#cards")
        for round_ in range(30):
            labels = [Label(f"card {round_}.{n}") for n in range(8)]
            await cards.mount_all(labels)
            await pilot.pause()
            caches.extend(weakref.ref(label._styles_cache) for label in labels)
            await cards.remove_children()
        await pilot.pause()
        gc.collect()
        # All but the last round (the screen's last frame may still hold those until it is drawn again).
        alive = [ref for ref in caches[:-8] if ref() is not None]
        assert alive == []


def test_the_inner_and_outer_styles_are_the_same_as_textuals() -> None:
    base, background = Color(10, 20, 30), Color(200, 100, 50, 0.5)
    inner, outer = StylesCache().get_inner_outer(base, background)
    assert (inner.background, outer.background) == (base + background, base)
