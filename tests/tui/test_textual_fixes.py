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


class Typing(App[None]):
    CSS = """
    TextArea { background: #102030; border: none; padding: 0; }
    .hot TextArea .text-area--cursor { background: #ff0000; }
    .warm TextArea { background: #304050; }
    """

    def compose(self) -> ComposeResult:
        from textual.widgets import TextArea

        with Vertical(id="box"):
            area = TextArea(id="area")
            area.cursor_blink = False
            yield area


def _drawn_backgrounds(area: object) -> set[str]:
    from textual.geometry import Region

    strips = area.render_lines(Region(0, 0, area.size.width, 1))  # type: ignore[attr-defined]
    return {segment.style.bgcolor.name for segment in strips[0] if segment.style and segment.style.bgcolor}


async def test_a_text_area_applies_its_theme_once_not_at_every_key_and_again_when_its_styles_change() -> None:
    """Issue 46: the prompt's TextArea built seven component styles anew at every draw (every key typed). The theme is
    applied again when a class, an ancestor's colour or the app's theme changes what it reads, and the cursor and the
    background drawn follow."""
    from textual.widgets import TextArea
    from textual._text_area_theme import TextAreaTheme

    applied: list[int] = []
    original = TextAreaTheme.apply_css

    def counted(self: TextAreaTheme, text_area: TextArea) -> None:
        applied.append(1)
        original(self, text_area)

    app = Typing()
    async with app.run_test(size=(40, 10)) as pilot:
        area = app.query_one("#area", TextArea)
        area.focus()
        await pilot.pause()
        TextAreaTheme.apply_css = counted  # type: ignore[method-assign]
        try:
            for key in "hello world":
                await pilot.press(key if key != " " else "space")
            await pilot.pause()
            assert area.text == "hello world"
            assert len(applied) <= 1, len(applied)  # drawn at each key, applied at most once
            before = _drawn_backgrounds(area)
            assert "#ff0000" not in before

            app.query_one("#box").add_class("hot")  # the cursor's component style changes
            await pilot.pause()
            area.move_cursor((0, 0))
            await pilot.pause()
            assert "#ff0000" in _drawn_backgrounds(area)

            app.query_one("#box").add_class("warm")  # its own background changes (the cursor's line is a tint of it)
            await pilot.pause()
            assert not (before - {"#ff0000"}) & _drawn_backgrounds(area), (before, _drawn_backgrounds(area))
        finally:
            TextAreaTheme.apply_css = original  # type: ignore[method-assign]
