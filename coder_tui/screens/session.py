"""The session screen (SPEC 15): transcript, todo pane, tool-event log, agents pane, queue, status line, prompt and
footer.

It is the ``SessionView`` the engine link reports to, and renders every engine event with one ``match``.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive

from coder_tui.runtime.between_keys import WhenPaused, run_between_keys
from coder_tui.screens.single_reflow import SingleReflow
from coder_tui.runtime.markdown_preload import highlighter_step, markdown_imports
from coder_tui.input.bindings import bindings_for
from coder_tui.runtime.gc_pacing import CollectionPacer
from coder_tui.transcript.held_mount import end_lingering, hold_for_next
from coder_tui.input.history import InputHistory
from coder_tui.widgets.agents_pane import AgentsPane, agents_summary
from coder_tui.widgets.footer_bar import FooterBar
from coder_tui.widgets.prompt import Prompt
from coder_tui.widgets.prompt_input import PromptInput
from coder_tui.widgets.queue_view import QueueView
from coder_tui.screens.input_progress import InputProgress
from coder_tui.widgets.status_line import SessionState, StatusLine
from coder_tui.widgets.todo_list import TodoList
from coder_tui.widgets.tool_log import ToolLog
from coder_tui.widgets.transcript import Transcript

if TYPE_CHECKING:
    from textual.content import Content
    from textual.timer import Timer

    from coder_tui.runtime.status_command import StatusCommand

    from coder_tui.link.engine_link import EngineLink
    from engine.events import Event
    from engine.protocol import EngineState, InputFinished

# How long after an input ends the garbage collector gets its quiet moment.
QUIET_AFTER_S = 0.3
# ... and waits until no key has been pressed for this long (a pass is a pause no key is drawn in), or it is owed.
KEYS_IDLE_S = 1.0
# How long a request's echo waits to be drawn with its answer's first entry (a fast model's), at most.
ECHO_WAITS_S = 1 / 60
# Below this width the side panes start hidden (Ctrl+T shows them); at 80x24 the transcript needs the room.
WIDE_LAYOUT = 100


# What rendering the engine's events imports besides the protocol, loaded after the first frame (``_start_link``).
EVENT_MODULES = (
    "engine.restored",
    "coder_tui.link.interaction",
    "coder_tui.widgets.tool_call_view",
    "coder_tui.widgets.history_entries",
    "coder_tui.widgets.command_output",
    "coder_tui.screens.help_screen",
    "coder_tui.widgets.tool_log_row",
    "coder_tui.widgets.stored_call_lines",
    "coder_tui.screens.session_events",
)


def _know_the_protocol() -> None:
    """The codec walks the protocol's types at its first decode: done here, it is not done in the callback that
    reads the engine's first line."""
    from engine.protocol import CODEC

    CODEC.types  # noqa: B018 - the property does the walk


class SessionScreen(SingleReflow):
    BINDINGS = bindings_for("screen")
    AUTO_FOCUS = "#prompt-input"

    panes_visible: reactive[bool] = reactive(True, init=False)

    def __init__(
        self,
        link: EngineLink,
        *,
        workspace: Path,
        location: str,
        history: InputHistory,
        clock: Callable[[], datetime] = lambda: datetime.now().astimezone(),
        timer: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        # "Now" in the local zone, for the picker's "today 09:31" (tests fix it).
        self.clock = clock
        self.link = link
        self.workspace = workspace
        self.location = location
        self.history = history
        self._wide: bool | None = None
        # The last key reached the prompt through on_key: it was typed before the app was up.
        self._typed_ahead = False
        # Printable keys typed before this screen is mounted (``hold_typed_ahead``), while it holds them.
        self._held: list[str] = []
        self._holding = True
        # Held, not queried: every streamed delta reaches ``show_event``, and a query walks the whole DOM.
        self.transcript = Transcript(id="transcript")
        self.todo_pane = TodoList(id="todo-pane")
        self.tool_log = ToolLog(id="tool-log")
        self.agents_pane = AgentsPane(timer=timer, id="agents-pane")
        self.status = StatusLine(id="status")
        self.progress = InputProgress(self.status, timer)
        self.prompt = Prompt(self.workspace, self.history, id="prompt")
        self._collector = CollectionPacer()
        self._keys_rest_timer: Timer | None = None
        # Runs ``status_line.command`` once the engine says it is configured.
        self._status_command: StatusCommand | None = None
        # Its keys are shown once the user pauses: built right after the first frame, they held up the first keys.
        self.footer = FooterBar(id="footer", deferred=True)

    def compose(self) -> ComposeResult:
        # The layout for the terminal's width, chosen before anything is mounted: a class set on the screen later
        # restyles every widget in it (a sizeable part of the first frame's time).
        self._wide = self.app.size.width >= WIDE_LAYOUT
        self.set_reactive(SessionScreen.panes_visible, self._wide)
        self.set_class(self._wide, "-panes")
        with Horizontal(id="body"):
            yield self.transcript
            with Vertical(id="side"):
                yield self.todo_pane
                yield self.tool_log
        yield self.agents_pane
        yield QueueView(id="queue")
        yield self.status
        yield self.prompt
        yield self.footer

    def on_mount(self) -> None:
        mode = self.link.mode.value
        self.prompt.location = self.location
        self._set_mode(mode)
        self.status.model = self.link.model
        # Focus now, not only when the screen resumes (AUTO_FOCUS): keys typed during start-up are queued behind
        # this and must find the prompt focused (see on_key).
        self.set_focus(self.prompt.input)
        self._holding = False
        if self._held:
            self.prompt.input.insert("".join(self._held))
            self._held.clear()
            self._typed_ahead = True
        self.link.attach(self)
        # The link starts once the first frame is on screen, so the prompt takes keys at once.
        self.call_after_refresh(self.run_worker, self._start_link(), group="engine-link")
        self.call_after_refresh(self._collector.settle)
        self.set_interval(1.0, self._show_elapsed)

    async def _start_link(self) -> None:
        """Imports the protocol, starts the link, and imports the other modules that render events and Markdown: the
        first frame does without them. One step at a time, in the gaps between keys; the footer's keys and the
        highlighter, too long for a gap, once the user pauses."""
        starting = [
            partial(importlib.import_module, "engine.events"),
            partial(importlib.import_module, "engine.interaction"),
            partial(importlib.import_module, "engine.protocol"),
            _know_the_protocol,
            self.link.start,
        ]
        opening = self.link.opens_session
        later = [
            *(partial(importlib.import_module, module) for module in EVENT_MODULES),
            *markdown_imports(),
            WhenPaused(self.footer.show_keys),
            # A resumed conversation does not need the highlighter: it waits for the conversation to be drawn.
            highlighter_step(self.transcript.history_drawn if opening else None),
        ]
        if opening:
            # A resumed conversation is waiting in the pipe, and it is what the user waits for: the link starts at
            # once (waiting for gaps between keys put it 0.3 s later on a loaded machine).
            for step in starting:
                step()
            await run_between_keys(self, later)
        else:
            await run_between_keys(self, [*starting, *later])

    def on_unmount(self) -> None:
        self._collector.close()
        if self._status_command is not None:
            self._status_command.close()

    def hold_typed_ahead(self, event: events.Key) -> bool:
        """True if the key is held: a printable key typed before this screen is mounted is inserted in the prompt as
        the screen mounts, so the first frame shows it (handed to the screen, it was drawn a frame later, a full
        one). Any other key ends the holding: it and the keys after it take the usual way, queued behind the mount,
        so their order is kept."""
        if not self._holding:
            return False
        if event.is_printable and event.character:
            self._held.append(event.character)
            return True
        self._holding = False
        return False

    def on_key(self, event: events.Key) -> None:
        # Keys typed while the app starts are handled before the prompt has focus and land on the screen;
        # hand them to the prompt (later, the prompt consumes every printable key itself).
        prompt = self.prompt.input
        if self.focused is not prompt:
            return
        typed_ahead, self._typed_ahead = self._typed_ahead, False
        if event.is_printable and event.character:
            prompt.insert(event.character)
            self._typed_ahead = True
            event.stop()
        elif event.key == "ctrl+j" and typed_ahead:
            # Enter typed ahead, before the app set the terminal to raw mode: the terminal made it a line feed.
            prompt.action_submit()
            event.prevent_default()
            event.stop()

    def on_resize(self, event: events.Resize) -> None:
        wide = event.size.width >= WIDE_LAYOUT
        if wide != self._wide:
            self._wide = wide
            self.panes_visible = wide

    def watch_panes_visible(self, visible: bool) -> None:
        self.set_class(visible, "-panes")

    def action_find(self) -> None:
        """Ctrl+F: search the transcript."""
        from coder_tui.screens.transcript_find import TranscriptFindScreen

        self.app.push_screen(TranscriptFindScreen(self.transcript))

    def action_toggle_panes(self) -> None:
        self.panes_visible = not self.panes_visible

    def action_toggle_agents(self) -> None:
        opening = not self.agents_pane.open
        self.agents_pane.set_open(opening)
        self.set_focus(self.agents_pane if opening else self.prompt.input)

    def on_streaming_markdown_round_shown(self) -> None:
        self.progress.show_streamed()

    def on_agents_pane_chosen(self, event: AgentsPane.Chosen) -> None:
        self.link.submit("/agents main" if event.agent is None else f"/agents show {event.agent}")
        self.link.start()
        self.on_agents_pane_closed()

    def on_agents_pane_cancel_all(self) -> None:
        self.link.cancel_agents()

    def agent_view_changed(self) -> None:
        """In an agent's view Esc interrupts that agent while it runs, as it does the main session's input; the
        status line names the agent in view and sums the agents' tokens."""
        viewed = self.link.agent_in_view
        running = viewed is not None and any(
            row.get("name") == viewed and row.get("state") in ("queued", "working", "waiting for you")
            for row in self.agents_pane.rows
        )
        self.prompt.input.task_running = running or self.link.busy
        self.status.agents = agents_summary(self.agents_pane.rows, viewed)

    def on_agents_pane_closed(self) -> None:
        self.agents_pane.set_open(False)
        self.set_focus(self.prompt.input)

    def action_toggle_output(self) -> None:
        self.transcript.toggle_outputs()

    def action_clear_transcript(self) -> None:
        self.transcript.clear()

    def action_scroll_transcript(self, where: Literal["page_up", "page_down", "top", "bottom"]) -> None:
        self.transcript.scroll_by_key(where)

    def on_prompt_input_submitted(self, event: PromptInput.Submitted) -> None:
        self.link.submit(event.text)
        # An input typed at launch: the link starts now rather than after the steps in the gaps between keys.
        self.link.start()

    def on_prompt_input_rewind_requested(self) -> None:
        self.link.submit("/rewind")

    def on_prompt_input_vim_mode_changed(self, event: PromptInput.VimModeChanged) -> None:
        self.status.vim_mode = event.mode

    # SessionView ----------------------------------------------------------------------------------------------

    def engine_ready(self, state: EngineState) -> None:
        if state.status_line_command and self._status_command is None:
            from coder_tui.runtime.status_command import StatusCommand

            self._status_command = StatusCommand(state, self._show_status_line)
            self._status_command.refresh()
        self.status.model = state.model
        self.status.model_missing = state.missing_model_setup is not None
        if state.missing_model_setup is not None:
            self.transcript.add_notice(state.missing_model_setup, "warning")
        self.status.context_window = state.context_window
        self.status.state = "working" if self.link.busy else "ready"
        self.prompt.slash_commands = list(state.slash_commands)
        if state.theme:
            self.apply_theme(state.theme)
        if state.vim != (self.prompt.input.vim is not None):
            self.prompt.input.set_vim(state.vim)
        self._set_mode(state.mode)
        # Start-up is over: what it made is frozen now; the collection waits until the keys stop.
        self._collector.settle()
        self._quiet_moment()

    def engine_failed(self, message: str) -> None:
        self.status.state = "unavailable"
        self.transcript.add_notice(message, "error")

    def input_started(self, text: str, *, echo: bool = True) -> None:
        self._collector.busy()
        if self._collector.owed:
            # The keys never rested since the last input ended: its pass now, while the model is asked, once the
            # echo is drawn.
            self.call_after_refresh(self._collector.catch_up)
        # A bare /rewind opens its picker, which is the whole of its answer: closing it leaves nothing behind.
        if echo and text.strip() != "/rewind":
            self.transcript.add_user(text)
            # Drawn with the answer's first entry if that comes within a frame's time, in one repaint.
            hold_for_next(self.transcript, ECHO_WAITS_S)
        self.progress.start()
        self.status.state = "working"
        self.prompt.input.task_running = True
        self.app.refresh_bindings()

    def input_finished(self, outcome: InputFinished) -> None:
        end_lingering(self.app)
        self._collector.idle()
        # Once the input's last frames are drawn (a resumed conversation takes a few), not before them.
        self.set_timer(QUIET_AFTER_S, self._quiet_moment)
        if self.link.queued:
            return
        state: SessionState = "interrupted" if outcome.reason == "cancelled" else "ready"
        self.agent_view_changed()  # not running, unless the agent in view is
        self.app.attention.call("done" if outcome.reason == "completed" else f"stopped ({outcome.reason})")
        self.app.refresh_bindings()
        self.transcript.when_drawn(lambda: self._idle(state))

    def _show_elapsed(self) -> None:
        if self.link.busy:
            self.progress.tick()

    def _idle(self, state: SessionState) -> None:
        """Once the answer's last words are drawn; not if another input started meanwhile."""
        if not self.link.busy:
            self.status.state = state

    def _quiet_moment(self) -> None:
        """The collector's quiet moment once no key has been pressed for ``KEYS_IDLE_S``: one timer waits for that
        at a time; until then the pass is owed (``CollectionPacer.owed``), and an input's start runs it."""
        idle_for = time.monotonic() - getattr(self.app, "last_key_at", 0.0)
        self._collector.quiet(keys_idle=idle_for >= KEYS_IDLE_S)
        if self._collector.owed and self._keys_rest_timer is None:
            self._keys_rest_timer = self.set_timer(max(KEYS_IDLE_S - idle_for, 0.05), self._when_keys_rest)

    def _when_keys_rest(self) -> None:
        self._keys_rest_timer = None
        if self._collector.owed:
            self._quiet_moment()

    def queue_changed(self, queued: list[str]) -> None:
        self.query_one(QueueView).set_items(queued)

    def mode_changed(self, mode: str) -> None:
        self._set_mode(mode)

    def show_event(self, event: Event) -> None:
        # Rendered by a module of its own, imported after the first frame (``EVENT_MODULES``) with the protocol.
        from coder_tui.screens.session_events import show_event

        show_event(self, event)
        if self._status_command is not None:
            self._status_command.heard(event)

    def _show_status_line(self, line: Content | None) -> None:
        self.status.custom = line

    def apply_theme(self, theme: str) -> None:
        if theme in self.app.available_themes:
            self.app.theme = theme
        else:
            self.transcript.add_notice(f"theme {theme!r} is not one of Textual's themes; keeping {self.app.theme}",
                                       "warning")

    def _set_mode(self, mode: str) -> None:
        self.prompt.mode = mode
