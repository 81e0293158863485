"""The user's input as it was submitted, at the head of each exchange in the transcript."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from coder_tui.widgets.sized_by_layout import SizedByLayout


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
        super().__init__(Content(text))
        self.text = text
