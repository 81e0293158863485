"""Fixes to Textual the app needs before upstream has them, each applied once at import and a no-op once Textual
no longer has the fault.

- ``StylesCache.get_inner_outer`` is an instance method under ``functools.lru_cache`` (Textual issue #6665, open
  in 8.2): the cache's keys hold ``self``, so the render cache of up to 1,024 removed widgets (every line a widget
  drew, with the pieces the compositor cut from them) stays alive. A long session removes a few widgets per
  exchange, so the UI grew by ~0.2 MB an exchange for its first thousand widgets. Here the same function is cached
  on the two colours alone, which are all its result depends on.
- ``Compositor.reflow`` arranges every widget (``visible_only=False``) and keeps that map, but leaves the map marked
  stale when a new widget made it so: the first widget whose size the layout then updates (every new one) asks where
  it is, and the compositor arranges the whole screen again for the same map. Each layout that mounted a widget
  arranged twice: in a session's full transcript, ~2 ms of the ~11 ms an exchange's layout takes. Here a reflow
  marks the map it made current.
- ``TextArea.render_lines`` applies its theme's CSS (``TextAreaTheme.apply_css``: seven component styles, each
  built anew, since every repaint clears the widget's style cache) each time it draws: at every key typed in the
  prompt, the larger part of drawing the key's frame (issue 46). Here it is applied again only when something it
  reads changed: the theme object, the widget's own style (its colours, inherited from its ancestors too), or its
  component styles (the stylesheet replaces them whenever it applies rules to the widget: a class, a pseudo-class,
  an app theme).
"""

from __future__ import annotations

from functools import lru_cache

from textual._compositor import Compositor
from textual._styles_cache import StylesCache

from coder_tui.input.text_area import TextArea


def _fix_inner_outer_cache() -> None:
    cached = StylesCache.__dict__.get("get_inner_outer")
    original = getattr(cached, "__wrapped__", None)
    if original is None or not hasattr(cached, "cache_info"):
        return  # not (or no longer) an lru_cache over the method: nothing to fix

    @lru_cache(1024)
    def by_colours(base_background, background):  # type: ignore[no-untyped-def]
        return original(None, base_background, background)

    def get_inner_outer(self, base_background, background):  # type: ignore[no-untyped-def]
        return by_colours(base_background, background)

    get_inner_outer.__doc__ = original.__doc__
    StylesCache.get_inner_outer = get_inner_outer  # type: ignore[method-assign]


def _fix_full_map_after_reflow() -> None:
    original = Compositor.reflow
    if "_full_map_invalidated" in original.__code__.co_names:
        return  # a reflow that sets the flag itself (or already wrapped): nothing to fix

    def reflow(self, parent, size):  # type: ignore[no-untyped-def]
        result = original(self, parent, size)
        self._full_map_invalidated = False  # the map it just made is of every widget, as ``full_map`` would make it
        return result

    reflow.__doc__ = original.__doc__
    Compositor.reflow = reflow  # type: ignore[method-assign]


def _fix_text_area_theme_per_frame() -> None:
    original = TextArea.render_lines
    if "apply_css" not in original.__code__.co_names:
        return  # the theme is no longer applied at each draw (or already wrapped): nothing to fix
    draw = super(TextArea, TextArea).render_lines  # what TextArea's own draws after applying the theme

    def render_lines(self, crop):  # type: ignore[no-untyped-def]
        theme = self._theme
        if not theme:
            return draw(self, crop)
        applied_for = (
            id(theme), self.rich_style, id(self.app.current_theme), tuple(map(id, self._component_styles.values()))
        )
        if getattr(self, "_theme_applied_for", None) != applied_for:
            theme.apply_css(self)
            self._theme_applied_for = applied_for
        return draw(self, crop)

    render_lines.__doc__ = original.__doc__
    TextArea.render_lines = render_lines  # type: ignore[method-assign]


_fix_inner_outer_cache()
_fix_full_map_after_reflow()
_fix_text_area_theme_per_frame()
