"""Which of the transcript's exchanges are mounted: a resumed history built lazily, older entries built as the user
scrolls up to them, and the exchanges that no longer fill the last screens given back to that lazy list (the
module docstring of ``coder_tui.widgets.transcript`` says why). ``Transcript`` is the one class that uses this."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from typing import TYPE_CHECKING

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from coder_tui.transcript.held_mount import mount_held
from coder_tui.widgets.exchange_group import ExchangeGroup

if TYPE_CHECKING:
    from coder_tui.widgets.history_entries import EntryFactory, PendingEntries, RestoredHistory
    from coder_tui.widgets.tool_call_view import ToolCallView

MAX_ENTRIES = 40
# While the user follows the end, older exchanges are pruned once the newer ones fill this many screens.
KEEP_SCREENS = 2
# A resumed conversation shows its last entries, as many as fill the transcript and at most this many: building more
# makes resuming slower.
RESUMED_ENTRIES = 30
# Older entries of a resumed conversation are built this many at a time, as the user scrolls up to them.
OLDER_BATCH = 30


class MountedWindow(VerticalScroll):
    """The transcript's mounted exchanges (``_groups``) and the history entries not built (``_older``)."""

    _groups: list[ExchangeGroup]
    _older: PendingEntries | None
    _elided: int
    _elided_line: Static
    _history_drawn: asyncio.Event
    _factory_of: dict[Widget, EntryFactory]
    _tool_views: dict[str, ToolCallView]

    if TYPE_CHECKING:

        def clear(self) -> None: ...

    def show_history(self, history: RestoredHistory) -> asyncio.Future[None]:
        """A resumed session's whole history, replacing what is shown: its last entries are built now and drawn in
        one frame, the older ones when the user scrolls up to them. The result is done once that frame is drawn."""
        self.clear()
        height = self.size.height or self.app.size.height
        self._older = history.pending()
        shown = self._older.take_filling(height, RESUMED_ENTRIES)
        if sum(factory.lines for factory in shown) >= height:
            # They will overflow: laid out beside the scrollbar at once, not first without it and then again, all
            # of them narrower, once it appears.
            self.show_vertical_scrollbar = True
        group = ExchangeGroup()
        group.entries = entries = self._build(shown)
        self._groups.append(group)
        self._update_elided_line()
        # The group, then its entries as a mount of their own: an entry added to the group meanwhile (the command's
        # result, in the same read of the pipe) is mounted after them (given to the group's constructor, they were
        # composed after it).
        self.mount(group)
        drawn = mount_held(group, entries)
        drawn.add_done_callback(lambda _: self._history_drawn.set())
        drawn.add_done_callback(lambda _: self._load_older_if_at_top())
        return drawn

    @property
    def older_count(self) -> int:
        """Entries of a resumed history not built yet (shown when the user scrolls up)."""
        return len(self._older) if self._older is not None else 0

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if new_value <= 0 < old_value and self._older:
            self.call_after_refresh(self._load_older_if_at_top)

    def _load_older_if_at_top(self) -> None:
        """Builds the next batch of older history entries above the first one, keeping the view where it was."""
        if self.scroll_y > 0:
            return
        group = self.load_older()
        if group is not None:
            self.call_after_refresh(self._keep_view_below, group)

    def load_older(self) -> ExchangeGroup | None:
        """Builds the next batch of older history entries (a resumed or pruned part) above the first one, wherever
        the view is (Ctrl+F looking further up); None when there is none to build."""
        if not self._older or not self._groups or self._elided:
            return None
        group = ExchangeGroup(*self._build(self._older.take(OLDER_BATCH)))
        self.mount(group, before=self._groups[0])
        self._groups.insert(0, group)
        self._update_elided_line()
        return group

    def _keep_view_below(self, group: ExchangeGroup) -> None:
        if not group.is_attached:
            return
        if not group.outer_size.height:  # not laid out yet
            self.call_after_refresh(self._keep_view_below, group)
            return
        self.scroll_to(y=self.scroll_y + group.outer_size.height + 1, animate=False, immediate=True)
        if self.max_scroll_y == 0:  # still no room to scroll: more at once
            self._load_older_if_at_top()

    def _build(self, factories: Sequence[EntryFactory]) -> list[Widget]:
        from coder_tui.widgets.tool_call_view import ToolCallView

        entries = []
        for factory in factories:
            entry = factory()
            self._factory_of[entry] = factory
            entries.append(entry)
            if isinstance(entry, ToolCallView):
                self._tool_views[entry.call_id] = entry
        return entries

    def _prune(self) -> list[Awaitable[object]]:
        """Keeps at most ``MAX_ENTRIES`` mounted, and while the user follows the end only the exchanges that fill
        ``KEEP_SCREENS`` screens: older exchanges go whole (back to the history not built yet, when they can be
        rebuilt), and an exchange too long on its own loses its oldest entries. Returns the removals (and mounts)
        it began."""
        excess = sum(len(group.entries) for group in self._groups) - MAX_ENTRIES
        changes: list[Awaitable[object]] = []
        while excess > 0 or self._taller_than_kept():
            if len(self._groups) > 1:
                group = self._groups.pop(0)
                changes.append(group.remove())
                dropped = group.entries
                if group.records is None or self._elided or not self._give_back_exchange(group):
                    self._forget(dropped)
            else:
                current = self._groups[0]
                dropped = current.entries[:excess]
                del current.entries[:excess]
                current.records = None  # shown in part now: not rebuilt from its records
                changes.extend(entry.remove() for entry in dropped)
                self._forget(dropped)
            excess -= len(dropped)
        if changes:
            changes.extend(self._update_elided_line())
        return changes

    def _taller_than_kept(self) -> bool:
        """Whether the exchanges after the oldest mounted one fill ``KEEP_SCREENS`` screens, the user following
        the end (never while they read above it: what they read stays). Exchanges not laid out yet count as
        nothing."""
        viewport = self.scrollable_content_region.height
        if len(self._groups) < 2 or viewport <= 0 or not self.is_anchored or self._anchor_released:
            return False
        return sum(group.outer_size.height for group in self._groups[1:]) >= KEEP_SCREENS * viewport

    def _give_back_exchange(self, group: ExchangeGroup) -> bool:
        """A whole live exchange pruned: it joins the history not built yet, shown again when scrolled up to. False
        when its records would not build the entries it showed (a `!` command's output, a notice): then it is
        counted as not shown, as before."""
        from coder_tui.widgets.history_entries import PendingEntries, RestoredHistory
        from coder_tui.widgets.tool_call_view import ToolCallView

        pending = RestoredHistory.of_entries(group.history_entries()).pending()
        if len(pending) != len(group.entries):
            return False
        for entry in group.entries:
            if isinstance(entry, ToolCallView):
                self._tool_views.pop(entry.call_id, None)
        if self._older is None:
            self._older = PendingEntries()
        for factory in pending.take(len(pending)):
            self._older.give_back(factory)
        return True

    def _forget(self, entries: Sequence[Widget]) -> None:
        """Pruned entries: a history entry goes back to the lazy list, a live one is counted as not shown."""
        from coder_tui.widgets.tool_call_view import ToolCallView

        for entry in entries:
            if isinstance(entry, ToolCallView):
                self._tool_views.pop(entry.call_id, None)
            factory = self._factory_of.pop(entry, None)
            if factory is not None and self._older is not None and not self._elided:
                self._older.give_back(factory)
            else:
                self._elided += 1

    def _update_elided_line(self) -> list[Awaitable[object]]:
        """Shows how many earlier entries are not mounted; returns the mount or removal of the line, if any."""
        if self._elided:
            text = f"… {self._elided + self.older_count} earlier entries are not shown"
        elif self._older:
            text = f"… {self.older_count} earlier entries: scroll up to show them"
        else:
            if self._elided_line.parent is None:
                return []
            line, self._elided_line = self._elided_line, Static("", classes="elided")
            return [line.remove()]
        self._elided_line.update(Content(text))
        return [] if self._elided_line.parent is not None else [self.mount(self._elided_line, before=0)]
