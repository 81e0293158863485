"""The transcript pane: the session as it happens, anchored to the bottom while streaming unless scrolled up.

Long sessions stay fast in three ways: a long answer streams into consecutive Markdown segments (``segments``);
finished Markdown entries other than the newest become one-widget ``MarkdownSnapshot``s; and only the last
``MAX_ENTRIES`` entries stay mounted (the session itself is in the engine's store). So layout and typing cost do not
grow with the length of an answer or of the session.

The Markdown widgets (and their parser) are imported after the first frame, in a thread: the empty screen does not
need them and start-up is shorter without.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual import work
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from coder_tui.segments import split_point
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
# The newest entries stay live Textual Markdown; settled ones older than this become light snapshots.
LIVE_ENTRIES = 1


class Transcript(VerticalScroll):
    """Entries are appended by the session screen as engine events arrive."""

    DEFAULT_CSS = """
    Transcript {
        height: 1fr;
        padding: 0 1 1 0;
        scrollbar-size-vertical: 1;
        & > .elided { color: $text-muted; padding: 0 1; text-style: italic; }
        & > .todos { margin: 1 0 0 2; border-left: vkey $accent 50%; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._streaming: StreamingMarkdown | None = None
        self._tool_views: dict[str, ToolCallView] = {}
        self._entries: list[Widget] = []
        self._elided = 0
        self._elided_line = Static("", classes="elided")

    def on_mount(self) -> None:
        self.anchor()
        self.call_after_refresh(self._preload_markdown)

    @work(thread=True, group="preload")
    def _preload_markdown(self) -> None:
        # Also the highlighter of code blocks and the snapshot renderer: loading them mid-stream stalls the screen.
        for module in (
            "coder_tui.widgets.assistant_message",
            "coder_tui.widgets.reasoning_block",
            "coder_tui.widgets.markdown_snapshot",
            "textual.highlight",
            "pygments.lexers.python",
        ):
            importlib.import_module(module)

    @property
    def entries(self) -> list[Widget]:
        """The mounted entries, oldest first (without the "earlier entries" line)."""
        return list(self._entries)

    def add_user(self, text: str) -> None:
        self.end_stream()
        self._add(UserMessage(text))

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
        kept = factories[-MAX_ENTRIES:]
        widgets = [factory() for factory in kept]
        self._entries.extend(widgets)
        self._elided = len(factories) - len(kept)
        if self._elided:
            self._elided_line.update(Content(f"… {self._elided} earlier entries are not shown"))
            self.mount(self._elided_line)
        self.mount_all(widgets)
        self._tool_views.update((w.call_id, w) for w in widgets if isinstance(w, ToolCallView))

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

    def add_command_result(self, result: CommandResult) -> None:
        self.end_stream()
        self._add(CommandOutput(result))

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
        self._entries.clear()
        self._elided = 0
        self._elided_line = Static("", classes="elided")
        self.remove_children()

    def _stream(self, kind: type[StreamingMarkdown], fragment: str) -> None:
        """Feeds the streaming entry of this kind, starting one (or a continuation segment) when needed."""
        current = self._streaming
        if type(current) is not kind or current is None:
            self.end_stream()
            current = self._streaming = kind()
            self._add(current)
        cut = split_point(current.text, fragment)
        if cut is None:
            current.feed(fragment)
            return
        current.feed(fragment[:cut])
        self.end_stream()
        self._streaming = kind(classes="-continued")
        self._add(self._streaming)
        self._streaming.feed(fragment[cut:])

    def on_streaming_markdown_settled(self) -> None:
        self._lighten()

    def _add(self, entry: Widget) -> None:
        self.mount(entry)
        self._entries.append(entry)
        self._lighten()
        excess = len(self._entries) - MAX_ENTRIES
        if excess <= 0:
            return
        for old in self._entries[:excess]:
            if isinstance(old, ToolCallView):
                self._tool_views.pop(old.call_id, None)
            old.remove()
        del self._entries[:excess]
        self._elided += excess
        self._elided_line.update(Content(f"… {self._elided} earlier entries are not shown"))
        if self._elided_line.parent is None:
            self.mount(self._elided_line, before=0)

    def _lighten(self) -> None:
        """Swaps settled Markdown entries that are a few entries old for one-widget snapshots."""
        from coder_tui.widgets.markdown_snapshot import MarkdownSnapshot
        from coder_tui.widgets.reasoning_block import ReasoningBlock
        from coder_tui.widgets.streaming_markdown import StreamingMarkdown

        for index, entry in enumerate(self._entries[:-LIVE_ENTRIES]):
            if isinstance(entry, StreamingMarkdown) and entry.is_settled and entry.is_mounted:
                classes = " ".join(
                    name
                    for name, wanted in (("-continued", entry.has_class("-continued")),
                                         ("-reasoning", isinstance(entry, ReasoningBlock)))
                    if wanted
                )
                snapshot = MarkdownSnapshot(entry.text, classes=classes)
                self.mount(snapshot, after=entry)
                entry.remove()
                self._entries[index] = snapshot
