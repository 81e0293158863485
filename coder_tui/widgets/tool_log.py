"""The tool-event log pane: one row per tool call with its live state (SPEC 15)."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING

from textual.containers import VerticalScroll

from coder_tui.transcript.held_mount import mount_held

if TYPE_CHECKING:
    from coder_tui.widgets.history_entries import StoredCall
    from coder_tui.widgets.stored_call_lines import StoredCallLines
    from coder_tui.widgets.tool_log_row import ToolLogRow
    from engine.events import Event, ToolStatus

# Older rows are dropped so a long session keeps a small DOM; the transcript keeps the full story.
MAX_ROWS = 200
# A resumed session shows its last calls, a few panes' worth.
RESTORED_ROWS = 40


class ToolLog(VerticalScroll, can_focus=False):
    """Rows keyed by call id; new calls are appended at the bottom and the pane follows them unless the user
    scrolled up. A resumed session's calls are lines above them (``StoredCallLines``)."""

    DEFAULT_CSS = """
    ToolLog {
        height: 1fr;
        padding: 0 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._rows: dict[str, ToolLogRow] = {}
        # A resumed session's calls: still to be shown, then shown (above any row).
        self._stored: list[StoredCall] | None = None
        self._stored_lines: StoredCallLines | None = None
        self.border_title = "Tool events"

    def clear(self) -> None:
        """``/new``: the new session has made no call yet."""
        self._stored = None
        self._stored_lines = None
        self._rows.clear()
        self.remove_children()

    def show_stored(self, calls: Sequence[StoredCall], after: Awaitable[object] | None = None) -> None:
        """``/resume``: the resumed session's last calls (``RESTORED_ROWS`` of them at most), as they ended, a line
        each. They are shown once ``after`` is done (the transcript's entries drawn: the conversation comes first)."""
        self.clear()
        self._stored = stored = list(calls)
        self.run_worker(self._show_stored_after(stored, after), group="restored-rows")

    async def _show_stored_after(self, calls: list[StoredCall], after: Awaitable[object] | None) -> None:
        if after is not None:
            await after
        if self._stored is not calls or not calls:  # cleared meanwhile, or none
            return
        from coder_tui.widgets.stored_call_lines import StoredCallLines

        self._stored = None
        self._stored_lines = lines = StoredCallLines(calls)
        if len(self.children) + len(calls) > self.scrollable_content_region.height:
            # More lines than the pane shows: laid out beside the scrollbar at once, not first without it and then
            # again, narrower, once it appears.
            self.show_vertical_scrollbar = True
        # Above any call that started meanwhile.
        drawn = mount_held(self, [lines], before=self.children[0] if self.children else None)
        drawn.add_done_callback(lambda _: self.scroll_end(animate=False))

    def add_call(self, call_id: str, tool: str, key_argument: str) -> None:
        from coder_tui.widgets.tool_log_row import ToolLogRow

        row = ToolLogRow(call_id, tool, key_argument)
        self._rows[call_id] = row
        following = self.scroll_y >= self.max_scroll_y
        self.mount(row)
        if following:
            self.call_after_refresh(self.scroll_end, animate=False)
        stored = self._stored_lines
        if len(self._rows) + (len(stored.calls) if stored is not None else 0) > MAX_ROWS:
            # The oldest go first: the resumed session's calls, then the oldest row.
            if stored is not None:
                self._stored_lines = None
                stored.remove()
            else:
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
