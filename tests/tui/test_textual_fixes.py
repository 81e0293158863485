"""Textual's faults the app works around (``coder_tui.runtime.textual_fixes``), each checked by what it kept alive."""

from __future__ import annotations

import gc
import weakref

from textual.app import App, ComposeResult
from textual.color import Color
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label

import coder_tui.runtime.textual_fixes  # noqa: F401
from textual._compositor import Compositor
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


class Feed(App[None]):
    def compose(self) -> ComposeResult:
        yield VerticalScroll(*(Label(f"line {n}") for n in range(60)), id="feed")


async def test_a_layout_that_mounts_a_widget_arranges_the_screen_once(monkeypatch) -> None:
    app = Feed()
    async with app.run_test(size=(40, 20)) as pilot:
        feed = app.query_one("#feed")
        feed.scroll_end(animate=False)
        await pilot.pause()
        arranged: list[str] = []
        arrange_root, reflow = Compositor._arrange_root, Compositor.reflow

        def counted_arrange(self, root, size, visible_only=True):  # type: ignore[no-untyped-def]
            arranged.append("visible" if visible_only else "all")
            return arrange_root(self, root, size, visible_only)

        def counted_reflow(self, parent, size):  # type: ignore[no-untyped-def]
            arranged.append("reflow")
            return reflow(self, parent, size)

        monkeypatch.setattr(Compositor, "_arrange_root", counted_arrange)
        monkeypatch.setattr(Compositor, "reflow", counted_reflow)
        for round_ in range(5):
            await feed.mount(Label(f"new {round_}"))
            await pilot.pause()
        monkeypatch.undo()
        # Each layout arranges every widget once (Textual's reflow was followed by a second, for the same map).
        assert arranged.count("reflow") >= 5
        assert arranged.count("all") == arranged.count("reflow"), arranged
        # And the map it keeps is the one a new arrangement makes.
        compositor = app.screen._compositor
        assert not compositor._full_map_invalidated
        fresh, _widgets = compositor._arrange_root(compositor.root, compositor.size, visible_only=False)
        assert compositor.full_map == fresh
        assert app.screen.find_widget(feed.children[-1]).region.height == 1
