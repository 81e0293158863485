"""The Markdown renderer and the code highlighter, loaded after the first frame as steps between keys.

The first answer needs them (loaded mid-stream they stall the screen), the empty screen does not. Loaded in a
thread, they held the interpreter's lock against the keys typed just after the first echo (those keys were drawn
40-90 ms late); loaded whole between two keys, one key waited for all of them. So they load a module at a time,
each step a few milliseconds, in the gaps between keys (``between_keys``).

The third-party modules named here are only stepping stones: each is what the widgets import anyway, named so that
a large subtree loads in a step of its own, in the order the widgets' own import would load it. One that is missing
(another release lays its modules out differently) is skipped; the widgets' import then loads whatever is left.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
from collections.abc import Awaitable, Callable
from functools import partial

from coder_tui.runtime.between_keys import WhenPaused

# Leaves first: each step finds the modules it depends on loaded by the steps before it.
STEPPING_STONES = (
    "email.message",
    "importlib.metadata",
    "pygments.lexer",
    "pygments.lexers",
    "rich.syntax",
    "markdown_it.common.utils",
    "markdown_it.rules_inline",
    "markdown_it.helpers",
    "markdown_it.rules_block",
    "markdown_it",
    "rich.markdown",
)
# The widgets themselves: their import must succeed.
WIDGET_MODULES = (
    "coder_tui.transcript.markdown_look",
    "coder_tui.widgets.assistant_message",
    "coder_tui.widgets.reasoning_block",
)
# The longest the highlighter waits for a resumed conversation to be drawn first.
HIGHLIGHTER_WAIT_S = 3.0


def import_if_present(module: str) -> None:
    with contextlib.suppress(ImportError):
        importlib.import_module(module)


def warm_highlighter() -> None:
    """The first lookup of a lexer loads Pygments' registry and compiles the lexer's patterns (~30 ms)."""
    from textual.highlight import highlight

    highlight("pass", language="python")


async def warm_highlighter_after(drawn: Callable[[], Awaitable[object]]) -> None:
    """The highlighter, once ``drawn()`` is done (a resumed conversation on screen: it does not need the highlighter
    unless it shows code, which then loads it as it renders), or after ``HIGHLIGHTER_WAIT_S``."""
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(drawn(), HIGHLIGHTER_WAIT_S)
    warm_highlighter()


def markdown_imports() -> list[Callable[[], object]]:
    """The imports, a module a step, in order."""
    steps: list[Callable[[], object]] = [partial(import_if_present, module) for module in STEPPING_STONES]
    return steps + [partial(importlib.import_module, module) for module in WIDGET_MODULES]


def highlighter_step(history_drawn: Callable[[], Awaitable[object]] | None = None) -> WhenPaused:
    """The highlighter's warm-up; with ``history_drawn``, it also waits for that. Its patterns compile in one piece,
    too long for a gap between keys: it waits for the user to pause (the first code block loads it otherwise)."""
    return WhenPaused(warm_highlighter if history_drawn is None else partial(warm_highlighter_after, history_drawn))
