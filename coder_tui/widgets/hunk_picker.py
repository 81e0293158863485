"""The diff of a write, edit or patch in the approval dialog, hunk by hunk: the user keeps some and drops others
(SPEC 5). The hunk under the cursor has a bar beside it; each hunk's first line says "keep" or "drop", and a dropped
hunk is struck through. File headers between hunks are shown as they are.

Hunks are numbered in the order the diff lists them (``engine.text_diff.diff_parts``), the numbers the engine
applies.
"""

from __future__ import annotations

from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from coder_tui.widgets.diff_view import _line_style
from engine.text_diff import diff_parts

KEEP, DROP = "✓ keep ", "✗ drop "


class Hunk(Static):
    """One hunk: its lines, styled as a diff, under a "keep" or "drop" mark."""

    DEFAULT_CSS = """
    Hunk {
        height: auto;
        padding: 0 0 0 1;
        border-left: blank;
        &.-cursor { border-left: thick $accent; background: $boost; }
        &.-dropped { color: $text-disabled; text-style: strike; }
    }
    """

    kept: reactive[bool] = reactive(True)

    def __init__(self, number: int, text: str) -> None:
        super().__init__()
        self.number = number
        self.text = text

    def render(self) -> Content:
        lines = self.text.split("\n")
        mark = Content.styled(KEEP if self.kept else DROP, "bold $text-success" if self.kept else "bold $text-error")
        rows = [mark + Content.styled(lines[0], _line_style(lines[0]) if self.kept else "")]
        rows += [Content.styled(line or " ", _line_style(line) if self.kept else "") for line in lines[1:]]
        return Content("\n").join(rows)

    def watch_kept(self, kept: bool) -> None:
        self.set_class(not kept, "-dropped")


class HunkPicker(Vertical):
    """Every part of the diff; ``toggle`` and ``move`` act on the hunk under the cursor."""

    DEFAULT_CSS = """
    HunkPicker { height: auto; }
    HunkPicker > .file { height: auto; padding: 0 0 0 2; text-style: bold; }
    """

    cursor: reactive[int] = reactive(0, init=False)

    def __init__(self, diff: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.parts = diff_parts(diff)

    def compose(self):  # type: ignore[no-untyped-def]
        for number, text in self.parts:
            if number is None:
                yield Static(Content(text), classes="file")
            else:
                yield Hunk(number, text)

    @property
    def hunks(self) -> list[Hunk]:
        return list(self.query_children(Hunk))

    @property
    def kept(self) -> tuple[int, ...]:
        return tuple(hunk.number for hunk in self.hunks if hunk.kept)

    @property
    def dropped_any(self) -> bool:
        return any(not hunk.kept for hunk in self.hunks)

    def on_mount(self) -> None:
        self.watch_cursor(self.cursor)

    def toggle(self) -> None:
        hunks = self.hunks
        if hunks:
            hunks[self.cursor].kept = not hunks[self.cursor].kept

    def move(self, delta: int) -> Hunk | None:
        """Moves the cursor to the previous (-1) or next (1) hunk; returns the hunk now under it."""
        hunks = self.hunks
        if not hunks:
            return None
        self.cursor = max(0, min(len(hunks) - 1, self.cursor + delta))
        return hunks[self.cursor]

    def watch_cursor(self, cursor: int) -> None:
        for index, hunk in enumerate(self.hunks):
            hunk.set_class(index == cursor, "-cursor")
