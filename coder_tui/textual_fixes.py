"""Fixes to Textual the app needs before upstream has them, each applied once at import and a no-op once Textual
no longer has the fault.

- ``StylesCache.get_inner_outer`` is an instance method under ``functools.lru_cache`` (Textual issue #6665, open
  in 8.2): the cache's keys hold ``self``, so the render cache of up to 1,024 removed widgets (every line a widget
  drew, with the pieces the compositor cut from them) stays alive. A long session removes a few widgets per
  exchange, so the UI grew by ~0.2 MB an exchange for its first thousand widgets. Here the same function is cached
  on the two colours alone, which are all its result depends on.
"""

from __future__ import annotations

from functools import lru_cache

from textual._styles_cache import StylesCache


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


_fix_inner_outer_cache()
