"""``CoderApp``: wires the session screen, the app-wide bindings and the engine link. ``run_tui`` runs it.

Kept short on purpose: rendering lives in the screen and widgets, engine plumbing in ``EngineLink``.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events
from textual.app import App

import coder_tui.runtime.textual_fixes  # noqa: F401 (applied at import, before any widget draws)
from coder_tui.runtime.attention import Attention
from coder_tui.input.bindings import bindings_for
from coder_tui.link.engine_link import EngineLink, EngineStarter
from coder_tui.transcript.formatting import display_path
from coder_tui.transcript.selection_look import with_legible_selection
from coder_tui.input.history import InputHistory
from coder_tui.screens.session import SessionScreen
from engine.signals import install_ending_signals

if TYPE_CHECKING:
    from rich.console import RenderableType
    from textual.driver import Driver
    from textual.screen import Screen

    from coder_tui.link.engine_process import EngineProcesses
    from coder_tui.link.engine_socket import AttachedEngines


# The answers to "agents are still running" that quit: stopping them, or leaving them running in the engine.
QUIT_WITH_AGENTS = "Stop them and quit"
LEAVE_AGENTS_RUNNING = "Leave them running"


class CoderApp(App[int]):
    """The full-screen session. ``engine`` starts the engine connection (``EngineProcesses`` in use, an in-memory
    engine in tests). ``workspace_label`` replaces the shown path and ``clock`` the local time, ``timer`` the clock a
    running input's time is measured by (snapshots show fixed ones)."""

    CSS_PATH = Path(__file__).parent / "app.tcss"
    TITLE = "coder-tui"
    BINDINGS = bindings_for("app")
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        *,
        workspace: Path,
        engine: EngineStarter,
        first_inputs: tuple[str, ...] = (),
        start_mode: str | None = None,
        model: str | None = None,
        workspace_label: str | None = None,
        history: InputHistory | None = None,
        clock: Callable[[], datetime] | None = None,
        timer: Callable[[], float] | None = None,
    ) -> None:
        super().__init__()
        self.theme = "textual-dark"
        self.workspace = workspace
        self.link = EngineLink(self, engine=engine, first_inputs=first_inputs, start_mode=start_mode, model=model)
        self._session = SessionScreen(
            self.link,
            workspace=workspace,
            location=workspace_label or display_path(workspace),
            history=history if history is not None else InputHistory.load(workspace),
            **({"clock": clock} if clock is not None else {}),
            **({"timer": timer} if timer is not None else {}),
        )
        self._ctrl_c_armed = False
        # When the last key arrived: the session screen keeps its pauses (garbage collection) for when typing stops.
        self.last_key_at = 0.0
        # When the last key was handled (a frame written after it shows it), and whether the user is typing (Enter
        # sends the input: then they read what comes).
        self.last_key_handled_at = 0.0
        self.typing = False
        # When the last frame was written: start-up's steps run just after the frame that showed a key.
        self.last_frame_at = 0.0
        self.attention = Attention(self)
        # Where the engine waits for ``coder-tui --attach`` once the user left it running (SPEC 26).
        self.left_running: str | None = None

    @property
    def session(self) -> SessionScreen:
        return self._session

    def get_css_variables(self) -> dict[str, str]:
        return with_legible_selection(super().get_css_variables(), self.console.color_system)

    def get_driver_class(self) -> type[Driver]:
        driver = super().get_driver_class()
        if driver.__module__ == "textual.drivers.linux_driver":  # not a driver the environment chose
            from coder_tui.input.input_driver import PromptEscapeDriver

            return PromptEscapeDriver
        return driver

    def _display(self, screen: Screen[object], renderable: RenderableType | None) -> None:
        one_write = getattr(self._driver, "one_write", None)
        with one_write() if one_write is not None else contextlib.nullcontext():
            super()._display(screen, renderable)
        if renderable is not None and not self._batch_count:
            self.last_frame_at = time.monotonic()

    def get_default_screen(self) -> SessionScreen:
        # The session is the default screen (not pushed later), so keys typed ahead of start-up reach the prompt.
        return self._session

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            self.last_key_at = self.last_key_handled_at = time.monotonic()
            self.typing = event.key != "enter"
            if self._session.hold_typed_ahead(event):
                return
        await super().on_event(event)

    def on_mount(self) -> None:
        # SIGTERM and SIGHUP (the terminal closed) end the app like Ctrl+C would end a task, then exit: closing
        # the link shuts the engine down, which kills a running bash group and marks its call interrupted.
        self._signals = install_ending_signals(
            lambda: None, asyncio.get_running_loop(), signals=(signal.SIGTERM, signal.SIGHUP), on_signal=self._end
        )

    def _end(self, signum: signal.Signals) -> None:
        self.link.cancel()
        self.exit(128 + int(signum))

    async def on_unmount(self) -> None:
        self._signals.remove()
        await self.link.aclose()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "interrupt":  # the running input, or the agent in view (SPEC 26)
            return self.link.busy or self.link.agent_in_view is not None
        return True

    def action_cycle_mode(self) -> None:
        self.link.cycle_mode()

    def action_interrupt(self) -> None:
        self.link.cancel()

    def leave(self) -> None:
        """Exits; with agents still running (SPEC 26), asks first: stop them and quit, or leave them running in the
        engine (``coder-tui --attach`` comes back to them), or stay."""
        running = self.session.agents_pane.running_names()
        if not running:
            self.exit(0)
            return
        from coder_tui.screens.question import QuestionScreen
        from engine.interaction import QuestionAnswer, QuestionRequest

        question = (
            f"{len(running)} agent{'s are' if len(running) > 1 else ' is'} still running ({', '.join(running)}). "
            "Stop them (their work so far stays in their worktrees), or leave them running and come back with "
            "coder-tui --attach?"
        )

        def chosen(answer: QuestionAnswer | None) -> None:
            if answer is not None and answer.answer == QUIT_WITH_AGENTS:
                self.exit(0)
            elif answer is not None and answer.answer == LEAVE_AGENTS_RUNNING:
                self.run_worker(self._leave_running(), name="leave-running", exclusive=True)

        request = QuestionRequest(question, (QUIT_WITH_AGENTS, LEAVE_AGENTS_RUNNING, "Stay"), allow_input=False)
        self.push_screen(QuestionScreen(request), callback=chosen)

    async def _leave_running(self) -> None:
        try:
            self.left_running = await self.link.detach()
        except RuntimeError as exc:
            self.notify(f"The agents cannot be left running: {exc}", severity="error", timeout=8)
            return
        self.exit(0)

    def action_ctrl_c(self) -> None:
        """Copy a selection; else cancel the running task; on an idle prompt, twice exits."""
        if selected := self.screen.get_selected_text():
            self.copy_to_clipboard(selected)
            self.screen.clear_selection()
        elif self.link.cancel():
            self._ctrl_c_armed = False
        elif self._ctrl_c_armed:
            self.leave()
        else:
            self._ctrl_c_armed = True
            self.notify("Press Ctrl+C again to exit", timeout=2)

    def on_prompt_input_submitted(self) -> None:
        self._ctrl_c_armed = False


def run_tui(
    *,
    workspace: Path,
    mode: str | None = None,
    model: str | None = None,
    resume: str | None = None,
    cont: bool = False,
    engine: EngineProcesses | AttachedEngines | None = None,
    fork: bool = False,
    prompt: str | None = None,
) -> int:
    """Runs the full-screen session until the user exits; returns the exit code. ``prompt``: a request sent at
    once (``coder-tui "fix the bug"``), after the session ``resume`` / ``cont`` opens. On the way out, says how to
    come back to the session (when it holds a conversation).

    The engine process starts first (pass ``engine`` spawned even before this module was imported), so it loads
    on the other core while the app draws its first frame; it reads the configuration itself. ``mode`` and
    ``model`` override it (the command line's ``--mode`` / ``--model``).
    """
    if engine is None:
        from coder_tui.link.engine_process import EngineProcesses

        engine = EngineProcesses(workspace=workspace, mode=mode, model=model)
    from coder_tui.launch.opening import session_input

    opening = session_input(resume, cont, fork)
    first_inputs = tuple(text for text in (opening, prompt) if text)
    app = CoderApp(workspace=workspace, engine=engine, first_inputs=first_inputs, start_mode=mode, model=model)
    code = app.run() or 0
    if app.left_running is not None:
        where = "" if Path.cwd().resolve() == workspace else f" --cwd {workspace}"
        print(f"The agents keep running in the engine of {workspace}. Come back with: coder-tui --attach{where}")
    elif app.link.state is not None and (hint := resume_hint(workspace, app.link.state.session_id)):
        print(hint)
    return code


def resume_hint(workspace: Path, session_id: str) -> str | None:
    """``coder-tui -r <id>`` for a session that holds a conversation (an empty one is nothing to come back to)."""
    from engine.storage.sessions.history_read import holds_conversation

    return f"Resume this session with: coder-tui -r {session_id}" if holds_conversation(workspace, session_id) else None
