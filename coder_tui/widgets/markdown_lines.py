"""Markdown as one light widget: rendered into lines once per width, served through Textual's line API.

Textual's Markdown widget is a tree of block widgets, and every block costs layout, styling and mounting work on
each update; in a long session that work grows with every block. The transcript instead renders Markdown here with
Rich's renderer (dressed in the app theme by ``markdown_look``) into plain segment lists: one widget whatever the
length. ``extend`` appends a chunk that starts on a block boundary, rendered on its own so earlier lines are never
rendered again (a streaming answer's finished blocks); ``replace`` swaps the whole text (its unfinished last
block). Lines are kept as segment lists rather than ``Strip`` objects, each of which carries several caches: fewer
objects for the garbage collector to walk in a long session. Only the rows drawn last are kept as strips
(``DRAWN_KEPT``). Rows drawn on screen carry no selection offsets (``render_line`` says why).
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable

from rich.console import Console, ConsoleOptions
from rich.segment import Segment
from rich.style import Style
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.widget import Widget

from coder_tui.transcript.markdown_look import MarkdownLook, markdown_look
from coder_tui.transcript.selected_lines import lines_text, selectable_strip
from coder_tui.widgets.sized_by_layout import SizedByLayout

Lines = list[list[Segment]]
# Renders Markdown (and whether it is the widget's first text: no blank line before it) in a worker thread.
Renderer = Callable[[str, bool], Lines]
# Rows kept drawn (without a selection), per widget: a tall terminal's screen and some.
DRAWN_KEPT = 128


class MarkdownLines(SizedByLayout, Widget):
    """Rendered Markdown; ``text`` is its source."""

    DEFAULT_CSS = """
    MarkdownLines {
        height: auto;
        /* A transcript entry of its own (a resumed conversation), spaced like a streamed one. */
        &.-entry { margin: 1 0 0 0; padding: 0 1; }
        &.-reasoning {
            color: $text-muted;
            text-style: italic;
            border-left: vkey $foreground 20%;
        }
    }
    """

    def __init__(self, text: str = "", *, classes: str = "") -> None:
        super().__init__(classes=classes)
        self._chunks: list[str] = [text] if text.strip() else []
        self._width = -1
        self._lines: list[list[Segment]] = []
        self._theme = ""  # the app theme the lines were rendered in
        # Rows drawn (with their offsets), by (row, width): kept while the lines they show are.
        self._drawn: LRUCache[tuple[int, int], Strip] = LRUCache(DRAWN_KEPT)
        self._drawing = False  # inside ``render_lines``: rows for the screen, not for the hit test

    @property
    def text(self) -> str:
        return "".join(self._chunks)

    @property
    def has_width(self) -> bool:
        """Knows the width it is drawn at (laid out at its current text, or presumed): a ``renderer`` can render for
        it."""
        return self._width > 0

    def presume_width_of(self, other: MarkdownLines) -> None:
        """Renders at ``other``'s width (and theme) until a layout says otherwise. A new answer is as wide as the one
        before it: its first words are rendered before it is laid out and shown by the layout that places it, where
        it took a layout of its own to learn its width (a full repaint of a transcript that scrolls) on every answer.
        If the width turns out otherwise, the layout renders the lines again."""
        if other._width > 0 and not self._chunks:
            self._width, self._theme = other._width, other._theme

    def extend(self, markdown: str) -> None:
        """Appends whole blocks (``markdown`` starts on a block boundary); only they are rendered."""
        if not markdown.strip():
            return
        self._chunks.append(markdown)
        if self._width > 0:
            self._lines.extend(self._render_chunk(markdown, self._width, first=len(self._chunks) == 1))
        self.refresh(layout=True)

    def replace(self, markdown: str) -> None:
        """Shows ``markdown`` instead of everything shown so far."""
        self._chunks = [markdown] if markdown.strip() else []
        self._width = -1
        self.refresh(layout=True)

    def renderer(self) -> tuple[int, Renderer] | None:
        """A function that renders Markdown as this widget does, safe to run in a worker thread (what it needs from
        the app is read now, and it renders on a console of its own), and the width it renders at. None before the
        widget has a width (it then renders at its first layout)."""
        width = self._width
        if width <= 0:
            return None
        options = self.app.console.options.update(width=width, highlight=False)
        look, style = markdown_look(self), self.rich_style
        color_system = self.app.console.color_system

        def render(markdown: str, first: bool) -> Lines:
            return _render(_thread_console(color_system), markdown, options, look, style, first=first)

        return width, render

    def extend_rendered(self, markdown: str, width: int, lines: Lines) -> None:
        """``extend`` with lines a ``renderer`` made (dropped if the width changed meanwhile)."""
        self._chunks.append(markdown)
        self._adopt(width, lines, replacing=False)

    def replace_rendered(self, markdown: str, width: int, lines: Lines) -> None:
        """``replace`` with lines a ``renderer`` made (as the first text)."""
        self._chunks = [markdown]
        self._adopt(width, lines, replacing=True)

    def _adopt(self, width: int, lines: Lines, *, replacing: bool) -> None:
        height = len(self._lines)
        if replacing:
            self._lines = []
            self._drawn.clear()
        if width == self._width:
            self._lines.extend(lines)
            # Words added to a streamed block's last line: the same height, so only this widget is repainted (a
            # layout would repaint the whole transcript, which scrolls).
            self.refresh(layout=len(self._lines) != height)
        else:
            self._width = -1  # rendered again at the next layout
            self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines_at(width))

    def render_lines(self, crop: Region) -> list[Strip]:
        self._drawing = True
        try:
            return super().render_lines(crop)
        finally:
            self._drawing = False

    def render_line(self, y: int) -> Strip:
        """Row ``y``. Drawn on screen (``render_lines``) a row carries no selection offsets: Textual's hit test,
        which finds where a drag starts and ends, asks ``render_line`` for the row under the mouse and gets them
        there. Made at every round of a streamed answer, offsets were most of what drawing a row cost."""
        width = self.content_size.width
        lines = self._lines_at(width)
        if y >= len(lines):
            return Strip.blank(width, self.rich_style)
        selection = self.text_selection
        if selection is not None:
            highlight = VisualStyle.from_styles(self.screen.get_component_styles("screen--selection"))
            return selectable_strip(lines[y], width, y, selection, highlight)
        if not self._drawing:
            return selectable_strip(lines[y], width, y, None, None)
        drawn = self._drawn.get((y, width))
        if drawn is None:
            drawn = Strip(lines[y], width)
            self._drawn.set((y, width), drawn)
        return drawn

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text as shown (Textual's selection; the lines at the width they are drawn at)."""
        return selection.extract(lines_text(self._lines_at(self.content_size.width))), "\n"

    def _lines_at(self, width: int) -> list[list[Segment]]:
        if self._theme != self.app.theme:
            # Another theme (/theme): the lines are rendered again in its colours, or the old ones stay as strips.
            self._theme = self.app.theme
            self._width = -1
        if width != self._width and width > 0:
            self._lines = [
                line
                for index, chunk in enumerate(self._chunks)
                for line in self._render_chunk(chunk, width, first=index == 0)
            ]
            self._width = width
            self._drawn.clear()
        return self._lines

    def _render_chunk(self, markdown: str, width: int, *, first: bool) -> list[list[Segment]]:
        """The chunk's lines, after the blank line that separates it from the chunk before (as between blocks)."""
        console = self.app.console
        options = console.options.update(width=width, highlight=False)
        return _render(console, markdown, options, markdown_look(self), self.rich_style, first=first)


def _render(
    console: Console, markdown: str, options: ConsoleOptions, look: MarkdownLook, style: Style, *, first: bool
) -> Lines:
    with console.use_theme(look.theme):
        lines = console.render_lines(look.renderable(markdown), options, style=style, pad=True)
    if not first:
        lines.insert(0, [Segment(" " * options.max_width, style)])
    return lines


_consoles = threading.local()


def _thread_console(color_system: str | None) -> Console:
    """A console for one worker thread, set up as Textual sets up the app's (whose theme stack is not shared)."""
    console: Console | None = getattr(_consoles, "console", None)
    if console is None or console.color_system != color_system:
        console = _consoles.console = Console(
            color_system=color_system,  # type: ignore[arg-type]
            file=io.StringIO(),
            markup=True,
            highlight=False,
            emoji=False,
            legacy_windows=False,
            force_terminal=True,
            safe_box=False,
            soft_wrap=False,
        )
    return console
