"""The tool-event log pane: one row per tool call with its live state (SPEC 15)."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING

from textual.containers import VerticalScroll

if TYPE_CHECKING:
    from coder_tui.widgets.history_entries import StoredCall
    from coder_tui.widgets.tool_log_row import ToolLogRow
    from engine.events import Event, ToolStatus

# Older rows are dropped so a long session keeps a small DOM; the transcript keeps the full story.
MAX_ROWS = 200
# A resumed session shows its last calls, a few panes' worth: each row is three widgets to build, and a resumed
# 5,000-message session would otherwise build 600 of them before its screen is drawn.
RESTORED_ROWS = 40


class ToolLog(VerticalScroll, can_focus=False):
    """Rows keyed by call id; new calls are appended at the bottom and the pane follows them unless the user
    scrolled up."""

    DEFAULT_CSS = """
    ToolLog {
        height: 1fr;
        padding: 0 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._rows: dict[str, ToolLogRow] = {}
        self.border_title = "Tool events"

    def clear(self) -> None:
        """``/new``: the new session has made no call yet."""
        self._rows.clear()
        self.remove_children()

    def show_stored(self, calls: Sequence[StoredCall], after: Awaitable[object] | None = None) -> None:
        """``/resume``: the resumed session's last calls (``RESTORED_ROWS`` of them at most), as they ended. They are
        mounted once ``after`` is done (the transcript's entries mounted: the conversation is drawn first)."""
        from coder_tui.widgets.tool_log_row import ToolLogRow

        self.clear()
        rows = []
        for call in calls:
            row = self._rows[call.call_id] = ToolLogRow(call.call_id, call.tool, call.key_argument)
            row.set_status(call.status)
            rows.append(row)
        self.run_worker(self._mount_stored_after(rows, after), group="restored-rows", exclusive=True)

    async def _mount_stored_after(self, rows: list[ToolLogRow], after: Awaitable[object] | None) -> None:
        if after is not None:
            await after
        self._mount_stored(rows)

    def _mount_stored(self, rows: list[ToolLogRow]) -> None:
        rows = [row for row in rows if self._rows.get(row.call_id) is row]  # not cleared meanwhile
        if rows:
            # Above any call that started meanwhile.
            self.mount_all(rows, before=self.children[0] if self.children else None)
            self.call_after_refresh(self.scroll_end, animate=False)

    def add_call(self, call_id: str, tool: str, key_argument: str) -> None:
        from coder_tui.widgets.tool_log_row import ToolLogRow

        row = ToolLogRow(call_id, tool, key_argument)
        self._rows[call_id] = row
        following = self.scroll_y >= self.max_scroll_y
        self.mount(row)
        if following:
            self.call_after_refresh(self.scroll_end, animate=False)
        if len(self._rows) > MAX_ROWS:
            oldest = next(iter(self._rows))
            self._rows.pop(oldest).remove()

    def set_status(
        self, call_id: str, status: ToolStatus, duration_ms: float | None = None, diff: str | None = None
    ) -> None:
        row = self._rows.get(call_id)
        if row is not None:
            row.set_status(status, duration_ms, diff)

    def subagent_event(self, parent_call_id: str, event: Event) -> None:
        """An event of the sub-agent a ``task`` call started, shown nested under that call's row."""
        row = self._rows.get(parent_call_id)
        if row is not None:
            row.subagent_event(event)

    def row(self, call_id: str) -> ToolLogRow | None:
        return self._rows.get(call_id)
