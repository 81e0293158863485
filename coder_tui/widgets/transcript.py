"""The transcript pane: the session as it happens, anchored to the bottom while streaming unless scrolled up.

Long sessions stay fast in three ways. A streaming answer renders its finished blocks once and re-renders only
its last block (``StreamingMarkdown``), and every Markdown entry is one light widget (``MarkdownLines``). Entries
are grouped by exchange (``ExchangeGroup``): when the live answer grows, the transcript re-arranges a few groups,
whose own arrangement Textual keeps cached, instead of measuring every entry again. And only the exchanges that fill
the last ``KEEP_SCREENS`` screens stay mounted (``MAX_ENTRIES`` at most), while the user follows the end: a live
exchange pruned goes back, as the message records the engine stored for it, to the same lazy list a resumed history
uses, and is built again when the user scrolls up to it. So layout, typing and memory do not grow with the length of
an answer or of the session (``benchmarks/long_session.py``): every layout still arranges each mounted group, so
short exchanges (forty entries were four screens of them) are pruned by height, not only by count. An entry is
added with its pruning as one held change (``hold_while``): the screen lays them out once.

A resumed session's history arrives whole (``HistoryRestored``) but is built lazily: at once only its last entries
that fill the transcript (at most ``RESUMED_ENTRIES``), mounted in one go with the screen held until they are, so
they are laid out and drawn in one frame (``held_mount``); older ones ``OLDER_BATCH`` at a time when the user
scrolls to the top. Pruned history entries go back to that lazy list, so scrolling up shows them again.

The Markdown widgets (and their parser) are imported after the first frame, a module at a time between keys
(``markdown_preload``): the empty screen does not need them and start-up is shorter without. So are the other
entries' widgets (``SessionScreen`` loads both).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from coder_tui.transcript.held_mount import hold_while
from coder_tui.widgets.exchange_group import ExchangeGroup
from coder_tui.widgets.notice_line import NoticeLevel, NoticeLine
from coder_tui.widgets.sized_by_layout import SizedByLayout
from coder_tui.widgets.transcript_window import MountedWindow
from coder_tui.widgets.todo_list import TodoList
from coder_tui.widgets.user_message import UserMessage

if TYPE_CHECKING:
    from coder_tui.widgets.history_entries import EntryFactory, PendingEntries
    from coder_tui.widgets.tool_call_view import ToolCallView
    from engine.command_results import CommandReply
    from engine.events import TodoItem
    from coder_tui.widgets.streaming_markdown import StreamingMarkdown

# What the empty screen says: what to do first, and where the rest is.
WELCOME = Content.assemble(
    ("Welcome to coder-tui.", "bold $text"), " Type a request and press Enter.\n",
    ("/help", "$text-accent"), " commands and keys · ", ("/init", "$text-accent"), " write AGENTS.md for this project · ",
    ("@", "$text-accent"), "file attaches a file · ", ("!", "$text-accent"), "command runs one",
)


class Transcript(SizedByLayout, MountedWindow):
    """Entries are appended by the session screen as engine events arrive. It never takes the focus: a click in it
    (expanding a sub-agent's conversation, say) leaves the prompt focused, so typing goes on where it was."""

    can_focus = False

    DEFAULT_CSS = """
    Transcript {
        height: 1fr;
        padding: 0 1 1 0;
        scrollbar-size-vertical: 1;
        & > .elided { color: $text-muted; padding: 0 1; text-style: italic; }
        & > .welcome { color: $text-muted; padding: 1 1 0 1; }
        & .-found { outline-left: thick $warning; background-tint: $warning 20%; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._streaming: StreamingMarkdown | None = None
        # The last streamed entry of each kind: the next one presumes its width (``StreamingMarkdown``'s ``like``).
        self._last_streamed: dict[type[StreamingMarkdown], StreamingMarkdown] = {}
        # Streamed entries still drawing their last words, and who waits for them to be shown in full.
        self._drawing: list[StreamingMarkdown] = []
        self._when_drawn: list[Callable[[], None]] = []
        self._tool_views: dict[str, ToolCallView] = {}
        self._groups: list[ExchangeGroup] = []
        self._elided = 0
        self._elided_line = Static("", classes="elided")
        # A resumed history's entries not built yet, oldest first, and the factory of each history entry built.
        self._older: PendingEntries | None = None
        self._history_drawn = asyncio.Event()
        self._factory_of: dict[Widget, EntryFactory] = {}

    def on_mount(self) -> None:
        self.anchor()
        self.mount(Static(WELCOME, classes="welcome"))

    async def history_drawn(self) -> None:
        """Returns once a resumed conversation is on screen."""
        await self._history_drawn.wait()

    @property
    def entries(self) -> list[Widget]:
        """The mounted entries, oldest first (without the "earlier entries" line)."""
        return [entry for group in self._groups for entry in group.entries]

    def add_user(self, text: str) -> None:
        self.end_stream()
        self._add(UserMessage(text), new_exchange=True)
        self.scroll_end(animate=False)  # a new input follows the bottom again, even after scrolling up

    def append_text(self, fragment: str) -> None:
        from coder_tui.widgets.assistant_message import AssistantMessage

        self._stream(AssistantMessage, fragment)

    def append_reasoning(self, fragment: str) -> None:
        from coder_tui.widgets.reasoning_block import ReasoningBlock

        self._stream(ReasoningBlock, fragment)

    def when_drawn(self, callback: Callable[[], None]) -> None:
        """Calls ``callback`` once every streamed entry shows all its text (at once when none is still drawing):
        the status says "ready" only when the last words are on screen."""
        self._when_drawn.append(callback)
        self._check_drawn()

    def on_streaming_markdown_settled(self) -> None:
        self._check_drawn()

    def _check_drawn(self) -> None:
        self._drawing = [entry for entry in self._drawing if entry.is_attached and not entry.is_settled]
        if not self._drawing:
            waiting, self._when_drawn = self._when_drawn, []
            for callback in waiting:
                callback()

    def end_stream(self) -> None:
        """The streaming answer or reasoning is complete; the next text starts a new entry."""
        if self._streaming is not None:
            self._streaming.finish()
            self._streaming = None

    def add_tool_call(self, call_id: str, tool: str, key_argument: str) -> ToolCallView:
        from coder_tui.widgets.tool_call_view import ToolCallView

        self.end_stream()
        view = ToolCallView(call_id, tool, key_argument)
        self._tool_views[call_id] = view
        self._add(view)
        return view

    def scroll_by_key(self, where: Literal["page_up", "page_down", "top", "bottom"]) -> None:
        """PageUp / PageDown / Home / End. Going up stops following the stream; reaching the bottom follows it again
        (Textual re-anchors a released transcript once it is scrolled to its end)."""
        if where in ("page_up", "top"):
            self.release_anchor()
        match where:
            case "page_up":
                self.scroll_page_up(animate=False)
            case "page_down":
                self.scroll_page_down(animate=False)
            case "top":
                self.scroll_home(animate=False)
            case "bottom":
                self.scroll_end(animate=False)

    def tool_call(self, call_id: str) -> ToolCallView | None:
        return self._tool_views.get(call_id)

    def toggle_outputs(self) -> None:
        """Ctrl+O: unfolds every folded long output and input shown; when none is folded, folds them all again."""
        from coder_tui.widgets.tool_output import ToolOutput

        long: list[ToolOutput | UserMessage] = [output for output in self.query(ToolOutput) if output.is_long]
        long += [message for message in self.query(UserMessage) if message.is_long]
        fold = not any(output.folded for output in long)
        for output in long:
            output.toggle(folded=fold)

    def add_command_result(self, result: CommandReply, *, now: datetime | None = None) -> None:
        """``now``: the local time, for the friendly times of ``/resume``'s list."""
        from coder_tui.widgets.command_output import CommandOutput

        self.end_stream()
        output = CommandOutput(result, now=now)
        self._add(output)
        if output.diff:
            # A diff is read from its summary down: show its top rather than its last lines.
            self.release_anchor()
            self.call_after_refresh(self._show_top_of, output)

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
        self._older = None
        self._factory_of.clear()
        self.remove_children()
        self._check_drawn()

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
            like = self._last_streamed.get(kind)
            current = self._streaming = kind(like=like if like is not None and like.is_attached else None)
            self._last_streamed[kind] = current
            self._drawing.append(current)
            self._add(current)
        current.feed(fragment)

    def add_record(self, record: dict[str, Any]) -> None:
        """A message the engine stored for the exchange being shown (``Message.to_record()``)."""
        if self._groups and (records := self._groups[-1].records) is not None:
            records.append(record)

    def add_diff(self, call_id: str, diff: str) -> None:
        """The diff a call of the exchange being shown made."""
        if self._groups and self._groups[-1].records is not None:
            self._groups[-1].diffs[call_id] = diff

    def _start_group(self, *, live: bool = False) -> list[Awaitable[object]]:
        # The screen is not empty any more: no welcome.
        changes: list[Awaitable[object]] = [welcome.remove() for welcome in self.query_children(".welcome")]
        group = ExchangeGroup(live=live)
        self._groups.append(group)
        changes.append(self.mount(group))
        return changes

    def _add(self, entry: Widget, *, new_exchange: bool = False) -> None:
        """Appends ``entry`` (to a new live exchange with ``new_exchange``) and prunes, all of it laid out once."""

        def change() -> list[Awaitable[object]]:
            changes = self._start_group(live=new_exchange) if new_exchange or not self._groups else []
            group = self._groups[-1]
            group.entries.append(entry)
            return [*changes, group.mount(entry), *self._prune()]

        hold_while(self, change)
