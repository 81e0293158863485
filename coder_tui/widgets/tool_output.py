"""A tool call's output in the transcript: live while the command runs, folded when long (SPEC 15).

While a command runs, its output arrives in pieces (``feed``) and the block shows its last ``LIVE_LINES`` lines,
with how many came before. Only those lines and a count are kept: a command printing a million lines costs no more
than one printing twenty. When the call ends, the block shows its result (``show``); a result longer than
``FOLD_AT`` lines is folded to its first ``HEAD`` and last ``TAIL`` lines around a "+N lines" line, and Ctrl+O (or
a click on the block) unfolds it. It is one widget whatever the length, so the transcript never mounts a widget a
line.
"""

from __future__ import annotations

from textual import events
from textual.content import Content

from coder_tui.widgets.sized_by_layout import SizedStatic
from engine.counted import counted

FOLD_AT = 40
HEAD = 6
TAIL = 12
LIVE_LINES = 12
# The key's name as the fold line shows it (the binding itself is in ``coder_tui.input.bindings``).
UNFOLD_KEY = "ctrl+o"


class ToolOutput(SizedStatic):
    """The output text; ``folded`` says whether a long one shows only its ends."""

    def __init__(self, *, classes: str = "") -> None:
        super().__init__("", classes=classes)
        self.text = ""
        self.folded = True
        self._live: list[str] = []  # the last lines printed so far (the last one may be unfinished)
        self._live_dropped = 0  # lines printed before those

    @property
    def is_long(self) -> bool:
        return self.text.count("\n") + 1 > FOLD_AT

    def feed(self, text: str) -> None:
        """More of a running command's output: the block shows its last lines."""
        pieces = text.split("\n")
        if self._live:
            self._live[-1] += pieces[0]
            pieces = pieces[1:]
        self._live.extend(pieces)
        if len(self._live) > LIVE_LINES + 1:
            drop = len(self._live) - LIVE_LINES - 1
            self._live_dropped += drop
            del self._live[:drop]
        shown = self._live[:-1] if self._live and self._live[-1] == "" else self._live
        lines = [Content(line) for line in shown[-LIVE_LINES:]]
        hidden = self._live_dropped + len(shown) - len(lines)
        if hidden:
            lines.insert(0, fold_line(f"… {counted(hidden, 'earlier line')}"))
        self.update(Content("\n").join(lines))

    def show(self, text: str) -> None:
        """The call's whole output, folded if long."""
        self.text = text.rstrip("\n")
        self._live, self._live_dropped = [], 0
        self._draw()

    def toggle(self, folded: bool | None = None) -> None:
        """Unfolds a folded output, or folds it again."""
        self.folded = (not self.folded) if folded is None else folded
        self._draw()

    def on_click(self, event: events.Click) -> None:
        if self.is_long and event.chain == 1:
            self.toggle()

    def _draw(self) -> None:
        lines = self.text.split("\n")
        if not self.is_long:
            self.update(Content(self.text))
            return
        if not self.folded:
            self.update(Content.assemble(Content(self.text), "\n", fold_line(f"({UNFOLD_KEY} to fold)")))
            return
        hidden = len(lines) - HEAD - TAIL
        self.update(Content("\n").join([
            *(Content(line) for line in lines[:HEAD]),
            fold_line(f"… +{hidden} lines ({UNFOLD_KEY} to expand)"),
            *(Content(line) for line in lines[-TAIL:]),
        ]))


def fold_line(text: str) -> Content:
    return Content.styled(text, "italic $text-accent")
