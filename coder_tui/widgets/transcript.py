"""The transcript pane: the session as it happens, anchored to the bottom while streaming unless scrolled up.

Long sessions stay fast in three ways. A streaming answer renders its finished blocks once and re-renders only
its last block (``StreamingMarkdown``), and every Markdown entry is one light widget (``MarkdownLines``). Entries
are grouped by exchange (``ExchangeGroup``): when the live answer grows, the transcript re-arranges a few groups,
whose own arrangement Textual keeps cached, instead of measuring every entry again. And only the last ``MAX_ENTRIES`` entries
stay mounted (the session itself is in the engine's store). So layout and typing cost do not grow with the length
of an answer or of the session.

The Markdown widgets (and their parser) are imported after the first frame, in a thread: the empty screen does not
need them and start-up is shorter without.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from textual import work
from textual.containers import VerticalGroup, VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from coder_tui.widgets.command_output import CommandOutput
from coder_tui.widgets.help_view import HelpView
from coder_tui.widgets.notice_line import NoticeLevel, NoticeLine
from coder_tui.widgets.todo_list import TodoList
from coder_tui.widgets.tool_call_view import ToolCallView
from coder_tui.widgets.user_message import UserMessage
from engine.events import CommandResult, TodoItem

if TYPE_CHECKING:
    from coder_tui.widgets.streaming_markdown import StreamingMarkdown
    from engine.messages import Message

MAX_ENTRIES = 120
# A resumed conversation shows its last entries, a few screens' worth: building more makes resuming slower.
RESUMED_ENTRIES = 40


class ExchangeGroup(VerticalGroup):
    """The entries of one exchange (an input and what followed it), or of a resumed conversation."""

    DEFAULT_CSS = """
    ExchangeGroup > .todos { margin: 1 0 0 2; border-left: vkey $accent 50%; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.entries: list[Widget] = []


class Transcript(VerticalScroll):
    """Entries are appended by the session screen as engine events arrive."""

    DEFAULT_CSS = """
    Transcript {
        height: 1fr;
        padding: 0 1 1 0;
        scrollbar-size-vertical: 1;
        & > .elided { color: $text-muted; padding: 0 1; text-style: italic; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._streaming: StreamingMarkdown | None = None
        self._tool_views: dict[str, ToolCallView] = {}
        self._groups: list[ExchangeGroup] = []
        self._elided = 0
        self._elided_line = Static("", classes="elided")

    def on_mount(self) -> None:
        self.anchor()
        self.call_after_refresh(self._preload_markdown)

    @work(thread=True, group="preload")
    def _preload_markdown(self) -> None:
        # With the Markdown renderer and the code highlighter: loading them mid-stream stalls the screen.
        for module in ("coder_tui.widgets.assistant_message", "coder_tui.widgets.reasoning_block"):
            importlib.import_module(module)
        from textual.highlight import highlight

        highlight("pass", language="python")  # the first lookup of a lexer loads Pygments' registry

    @property
    def entries(self) -> list[Widget]:
        """The mounted entries, oldest first (without the "earlier entries" line)."""
        return [entry for group in self._groups for entry in group.entries]

    def add_user(self, text: str) -> None:
        self.end_stream()
        self._start_group()
        self._add(UserMessage(text))
        self.scroll_end(animate=False)  # a new input follows the bottom again, even after scrolling up

    def append_text(self, fragment: str) -> None:
        from coder_tui.widgets.assistant_message import AssistantMessage

        self._stream(AssistantMessage, fragment)

    def append_reasoning(self, fragment: str) -> None:
        from coder_tui.widgets.reasoning_block import ReasoningBlock

        self._stream(ReasoningBlock, fragment)

    def show_history(self, messages: Sequence[Message]) -> None:
        """A resumed session's conversation, replacing what is shown; only the last entries are built."""
        from coder_tui.widgets.history_entries import history_factories

        self.clear()
        factories = history_factories(messages)
        kept = factories[-RESUMED_ENTRIES:]
        group = self._start_group()
        group.entries.extend(factory() for factory in kept)
        group.mount_all(group.entries)
        self._tool_views.update((w.call_id, w) for w in group.entries if isinstance(w, ToolCallView))
        self._elide(len(factories) - len(kept))

    def end_stream(self) -> None:
        """The streaming answer or reasoning is complete; the next text starts a new entry."""
        if self._streaming is not None:
            self._streaming.finish()
            self._streaming = None

    def add_tool_call(self, call_id: str, tool: str, key_argument: str) -> ToolCallView:
        self.end_stream()
        view = ToolCallView(call_id, tool, key_argument)
        self._tool_views[call_id] = view
        self._add(view)
        return view

    def tool_call(self, call_id: str) -> ToolCallView | None:
        return self._tool_views.get(call_id)

    def add_command_result(self, result: CommandResult, *, now: datetime | None = None) -> None:
        """``now``: the local time, for the friendly times of ``/resume``'s list."""
        self.end_stream()
        output = CommandOutput(result, now=now)
        self._add(output)
        if output.diff:
            # A diff is read from its summary down: show its top rather than its last lines.
            self.release_anchor()
            self.call_after_refresh(self._show_top_of, output)

    def add_help(self, commands: Sequence[tuple[str, str]]) -> None:
        self.end_stream()
        self._add(HelpView(commands))

    def add_notice(self, text: str, level: NoticeLevel = "info") -> None:
        self.end_stream()
        self._add(NoticeLine(text, level))

    def add_todos(self, todos: Sequence[TodoItem]) -> None:
        self.end_stream()
        self._add(TodoList(todos, classes="todos"))

    def clear(self) -> None:
        """Ctrl+L: an empty screen; the session and its history are untouched."""
        self.end_stream()
        self._tool_views.clear()
        self._groups.clear()
        self._elided = 0
        self._elided_line = Static("", classes="elided")
        self.remove_children()

    def _show_top_of(self, entry: Widget) -> None:
        if not entry.is_attached:
            return
        if entry.size.height:
            self.scroll_to_widget(entry, top=True, animate=False)
        else:  # not laid out yet
            self.call_after_refresh(self._show_top_of, entry)

    def _stream(self, kind: type[StreamingMarkdown], fragment: str) -> None:
        """Feeds the streaming entry of this kind, starting one when needed."""
        current = self._streaming
        if type(current) is not kind or current is None:
            self.end_stream()
            current = self._streaming = kind()
            self._add(current)
        current.feed(fragment)

    def _start_group(self) -> ExchangeGroup:
        group = ExchangeGroup()
        self._groups.append(group)
        self.mount(group)
        return group

    def _add(self, entry: Widget) -> None:
        group = self._groups[-1] if self._groups else self._start_group()
        group.entries.append(entry)
        group.mount(entry)
        self._prune()

    def _prune(self) -> None:
        """Keeps ``MAX_ENTRIES`` mounted: whole exchanges go first, the current one loses its oldest entries."""
        excess = sum(len(group.entries) for group in self._groups) - MAX_ENTRIES
        if excess <= 0:
            return
        removed = 0
        while removed < excess:
            oldest = self._groups[0]
            dropped = oldest.entries[: excess - removed]
            if len(dropped) == len(oldest.entries) and len(self._groups) > 1:
                self._groups.pop(0).remove()
            else:
                del oldest.entries[: len(dropped)]
                for entry in dropped:
                    entry.remove()
            self._forget(dropped)
            removed += len(dropped)
        self._elide(removed)

    def _forget(self, entries: Sequence[Widget]) -> None:
        for entry in entries:
            if isinstance(entry, ToolCallView):
                self._tool_views.pop(entry.call_id, None)

    def _elide(self, count: int) -> None:
        if not count:
            return
        self._elided += count
        self._elided_line.update(Content(f"… {self._elided} earlier entries are not shown"))
        if self._elided_line.parent is None:
            self.mount(self._elided_line, before=0)
