"""The user's input as it was submitted, at the head of each exchange in the transcript.

An input of more than ``FOLD_OVER_LINES`` lines (a large paste, mostly) is folded like a long tool output: its first
and last lines around "+N lines"; Ctrl+O (or a click on it) unfolds it. The model always got all of it.
"""

from __future__ import annotations

from textual import events
from textual.content import Content
from textual.widgets import Static

from coder_tui.input.pasted_texts import FOLD_OVER_LINES
from coder_tui.widgets.sized_by_layout import SizedByLayout
from coder_tui.widgets.tool_output import UNFOLD_KEY, fold_line

HEAD = 3
TAIL = 2


class UserMessage(SizedByLayout, Static):
    """One submitted input (a request, a ``!`` command or a ``/`` command), shown verbatim, never as markup."""

    DEFAULT_CSS = """
    UserMessage {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: outer $primary;
        background: $primary-muted 40%;
        color: $text;
    }
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.folded = True
        super().__init__(self._shown())

    @property
    def is_long(self) -> bool:
        return self.text.rstrip("\n").count("\n") + 1 > FOLD_OVER_LINES

    def toggle(self, folded: bool | None = None) -> None:
        """Unfolds a folded input, or folds it again."""
        self.folded = (not self.folded) if folded is None else folded
        self.update(self._shown())

    def on_click(self, event: events.Click) -> None:
        if self.is_long and event.chain == 1:
            self.toggle()

    def _shown(self) -> Content:
        if not self.is_long:
            return Content(self.text)
        if not self.folded:
            return Content.assemble(Content(self.text), "\n", fold_line(f"({UNFOLD_KEY} to fold)"))
        lines = self.text.rstrip("\n").split("\n")  # a pasted block's last line break ends no line of its own
        return Content("\n").join([
            *(Content(line) for line in lines[:HEAD]),
            fold_line(f"… +{len(lines) - HEAD - TAIL} lines ({UNFOLD_KEY} to expand)"),
            *(Content(line) for line in lines[-TAIL:]),
        ])
