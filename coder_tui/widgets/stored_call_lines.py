"""A resumed session's last tool calls in the tool-event log: a line each, as their rows showed them when they ended.

They are finished and never change, so they are one widget rather than a row widget each: a resumed session shows
them all at once, and forty rows of widgets cost a long layout as they mounted (in the first seconds after the
conversation is drawn, when the user starts typing) and made every later layout of the screen slower.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.content import Content

from coder_tui.transcript.tool_status import tool_summary
from coder_tui.widgets.sized_by_layout import SizedStatic

if TYPE_CHECKING:
    from coder_tui.widgets.history_entries import StoredCall


class StoredCallLines(SizedStatic):
    """The calls' summary lines, each cut to the pane's width (as a ``ToolLogRow``'s summary)."""

    DEFAULT_CSS = """
    StoredCallLines { height: auto; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, calls: Sequence[StoredCall]) -> None:
        super().__init__(Content("\n").join(
            tool_summary(call.tool, call.key_argument, call.status, None) for call in calls
        ))
        self.calls = list(calls)
