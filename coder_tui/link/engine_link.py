"""The TUI's link to the engine: a client of the engine protocol (``engine.protocol``).

The engine runs in its own process (``coder_tui.link.engine_process``), or in memory for tests; either way only protocol
messages cross. The link keeps the visible queue (SPEC 15: input submitted while busy is queued and runs next; the
engine runs them in order), forwards events to the screen, opens the dialogs the engine asks for, and restarts a
crashed engine on the same session.

The protocol's modules (the events, the interaction requests, the message types) are imported where they are used:
the session screen imports them after its first frame, a step at a time between keys, before it starts the link;
nothing here needs them earlier, and importing them is a sizeable part of the time until the first frame (a few
hundred dataclasses).
"""

from __future__ import annotations

import itertools
from collections import deque
from functools import cached_property
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.app import App
from textual.worker import Worker

from coder_tui.link.drawable import drawable
from coder_tui.link.ends import EngineConnection, EngineStarter, SessionView
from coder_tui.link.terminal_text import terminal_text
from engine.modes import Mode, next_mode

if TYPE_CHECKING:
    import asyncio

    from coder_tui.link.interaction import TuiInteraction
    from engine.events import Event
    from engine.protocol import Detached, DetachFailed, EngineState

# A crashed engine is restarted on its session this many times; then the screen says so and stays without one.
MAX_RESTARTS = 3
# How long the engine may take to start waiting for the next UI (``detach``).
DETACH_TIMEOUT_S = 10.0


class EngineLink:
    """One engine per app. ``engine`` starts a connection (called again to restart after a crash)."""

    def __init__(
        self,
        app: App[object],
        *,
        engine: EngineStarter,
        first_inputs: tuple[str, ...] = (),
        start_mode: str | None = None,
        model: str | None = None,
    ) -> None:
        self._app = app
        self._start_engine = engine
        self._connection: EngineConnection | None = None
        self._view: SessionView | None = None
        self._ids = (f"i{number}" for number in itertools.count(1))
        self._queue: deque[tuple[str, str]] = deque((next(self._ids), text) for text in first_inputs)
        self._running: str | None = None
        self._dialogs: dict[str, Worker[None]] = {}
        self._closing = False
        self.started = False
        self._restarts = 0
        # The inputs that resume the session after a restart, and the session each resumes.
        self._restarts_by_id: dict[str, str] = {}
        # The engine sent the history of the session it opens with before it started (``--resume``, ``--continue``).
        self._opened_early = False
        # The engine's answer to ``Detach``: where it waits, or why it cannot.
        self._detaching: asyncio.Future[Detached | DetachFailed] | None = None
        self.state: EngineState | None = None
        # The agents' sessions (id -> name, SPEC 26), and the agent whose session is in view (None: the main one).
        self._agent_sessions: dict[str, str] = {}
        self.agent_in_view: str | None = None
        # The main session's id, which the engine's state names while no agent's is in view.
        self._main_session: str | None = None
        self._mode = Mode.parse(start_mode) if start_mode else Mode.DEFAULT
        self._model = model or ""

    @cached_property
    def interaction(self) -> TuiInteraction:
        """Opens the dialogs the engine asks for."""
        from coder_tui.link.interaction import TuiInteraction

        return TuiInteraction(self._app)

    @property
    def busy(self) -> bool:
        """An input is running (the queue may hold more)."""
        return self._running is not None

    @property
    def mode(self) -> Mode:
        return self._mode

    @property
    def model(self) -> str:
        return self._model

    @property
    def queued(self) -> list[str]:
        return [text for _, text in self._queue]

    @property
    def waiting(self) -> list[str]:
        """The queued inputs the screen shows as waiting: all of them while an input runs or the engine is not up
        yet. With the engine up and idle the first one starts at once: shown as queued for the moment its start
        takes, it flashed the queue open and shut on every input (and laid the screen out twice for it)."""
        queued = self.queued
        return queued[1:] if self._running is None and self.state is not None else queued

    def attach(self, view: SessionView) -> None:
        self._view = view

    @property
    def opens_session(self) -> bool:
        """The first input given at launch resumes a session (``--resume``, ``--continue``)."""
        return bool(self._queue) and self._queue[0][1].startswith("/resume ")

    def start(self) -> None:
        """Connects to the engine and sends the inputs given so far; call once the app runs (again: nothing)."""
        if not self.started:
            self.started = True
            self._connect()

    def submit(self, text: str) -> None:
        input_id = next(self._ids)
        self._queue.append((input_id, text))
        self._notify_queue()
        if self._connection is not None:  # else the connection sends the queue when it opens
            from engine.protocol import RunInput

            self._send(RunInput(input_id, text))

    def cancel(self) -> bool:
        """Cancels the running input (the queue stays and runs next), or in an agent's view that agent's work; True
        if something may have been running."""
        if self._running is None and self.agent_in_view is None:
            return False
        from engine.protocol import Cancel

        self._send(Cancel())
        return True

    def cancel_agents(self) -> None:
        """Stops every running agent at once (SPEC 26), without waiting behind a running input."""
        from engine.protocol import Cancel

        self._send(Cancel(agents=True))

    async def aclose(self) -> None:
        """On exit: the engine cancels what runs, closes its store and exits."""
        self._closing = True
        connection, self._connection = self._connection, None
        if connection is not None:
            from engine.protocol import CODEC, Shutdown

            connection.send_line(CODEC.dumps(Shutdown()))
            await connection.aclose()

    async def detach(self) -> str:
        """Leaves the engine running with its agents (SPEC 26) and lets go of it; returns the socket it waits on
        for ``coder-tui --attach``. ``RuntimeError`` with the engine's reason when it cannot."""
        import asyncio

        from engine.protocol import Detach, Detached

        connection, self._detaching = self._connection, asyncio.get_running_loop().create_future()
        self._send(Detach())
        try:
            answer = await asyncio.wait_for(self._detaching, DETACH_TIMEOUT_S)
        except TimeoutError:
            raise RuntimeError("the engine did not answer") from None
        finally:
            self._detaching = None
        if not isinstance(answer, Detached) or connection is None:
            raise RuntimeError(getattr(answer, "message", "no engine is connected"))
        self._closing, self._connection = True, None
        await connection.detach()  # type: ignore[attr-defined]
        return answer.socket

    def cycle_mode(self) -> None:
        """Shift+Tab: default → auto-edit → plan → default. The engine confirms with ``ModeChanged``."""
        mode = next_mode(self._mode)
        if self._connection is not None:
            from engine.protocol import SetMode

            self._send(SetMode(mode.value))
        if self.state is None:  # not loaded yet: it starts in this mode
            self._set_mode(mode)

    # -- the connection ---------------------------------------------------------------------------------------------
    def _connect(self) -> None:
        from engine.protocol import RunInput

        self._connection = connection = self._start_engine()
        connection.open(self._receive, lambda why: self._stopped(connection, why))
        for input_id, text in self._queue:
            self._send(RunInput(input_id, text))

    def _send(self, message: object) -> None:
        if self._connection is not None:
            from engine.protocol import CODEC

            self._connection.send_line(CODEC.dumps(message))

    def _receive(self, line: str) -> None:
        from engine.command_results import SessionResumed
        from engine.events import HistoryRestored, ModeChanged, ModelChanged, Notice
        from engine.protocol import (
            CODEC,
            PROTOCOL_VERSION,
            Detached,
            DetachFailed,
            EngineEvent,
            EngineFailed,
            EngineReady,
            InputFinished,
            InputStarted,
            InteractionRequested,
            InteractionWithdrawn,
            ProtocolError,
        )

        try:
            message = CODEC.loads(line)
        except ProtocolError as exc:
            self._show_failure(f"the engine sent something unreadable: {terminal_text(str(exc))}")
            return
        # The one boundary where outside text enters the UI (SPEC 25): nothing past here holds a control character.
        message = drawable(message)
        view = self._view
        match message:
            case EngineEvent(event=HistoryRestored()) if self._running in self._restarts_by_id:
                pass  # the transcript already shows this session: it is not drawn again
            case EngineEvent(event=SessionResumed()) if self._running in self._restarts_by_id:
                if view is not None:
                    view.show_event(Notice(f"the engine restarted; session {self._restarts_by_id[self._running]} "
                                           "resumed", "warning"))
            case EngineEvent(event=HistoryRestored() as event) if self._running is None:
                self._opened_early = True
                if view is not None:
                    view.show_event(event)
            case EngineEvent(session_id=session_id) if self._in_background(session_id):
                pass  # an agent not in view: only the agents pane follows it (``AgentsChanged``)
            case EngineEvent(event=event):
                self._follow_agents(event)
                if isinstance(event, ModeChanged):
                    self._mode = Mode.parse(event.mode)
                elif isinstance(event, ModelChanged):
                    self._model = event.model
                if view is not None:
                    view.show_event(event)
            case InputStarted(input_id=input_id):
                text = self._pop_queued(input_id)
                self._running = input_id
                self._notify_queue()
                # The opening /resume of a history already shown is not shown again, nor an input an earlier UI
                # sent (the engine says it runs when this one attaches): its request is in the history shown.
                echo = bool(text) and not (self._opened_early and text.startswith("/resume "))
                self._opened_early = False
                if view is not None and input_id not in self._restarts_by_id:
                    view.input_started(text, echo=echo)
            case InputFinished():
                self._running = None
                self._adopt(message.state)
                if view is not None:
                    view.input_finished(message)
            case InteractionRequested(request_id=request_id, request=request):
                self._dialogs[request_id] = self._app.run_worker(
                    self._answer(request_id, request), name=f"dialog-{request_id}", group="dialogs"
                )
            case InteractionWithdrawn(request_id=request_id):
                if (dialog := self._dialogs.pop(request_id, None)) is not None:
                    dialog.cancel()
            case EngineReady(state=state):
                if state.protocol_version != PROTOCOL_VERSION:
                    self._show_failure(f"the engine speaks protocol {state.protocol_version}, not {PROTOCOL_VERSION}")
                    return
                self._adopt(state)
                if view is not None:
                    view.engine_ready(state)
            case EngineFailed(message=text):
                self._show_failure(text)
            case Detached() | DetachFailed() if self._detaching is not None and not self._detaching.done():
                self._detaching.set_result(message)

    async def _answer(self, request_id: str, request: object) -> None:
        from engine.interaction import ApprovalRequest, ElicitationRequest, TrustRequest
        from engine.protocol import AnswerRequest

        if isinstance(request, ApprovalRequest):
            answer: object = await self.interaction.request_approval(request)
        elif isinstance(request, TrustRequest):
            answer = await self.interaction.request_trust(request)
        elif isinstance(request, ElicitationRequest):
            answer = await self.interaction.elicit(request)
        else:
            answer = await self.interaction.ask_question(request)  # type: ignore[arg-type]
        self._dialogs.pop(request_id, None)
        self._send(AnswerRequest(request_id, answer))  # type: ignore[arg-type]

    def _stopped(self, connection: EngineConnection, why: str) -> None:
        """The engine process died: say so, and start a new one on the same session."""
        from engine.events import Notice
        from engine.protocol import InputFinished

        if self._closing or connection is not self._connection:
            return
        self._connection = None
        for dialog in self._dialogs.values():
            dialog.cancel()
        self._dialogs.clear()
        running, self._running = self._running, None
        state = self.state
        self._show_failure(f"the engine stopped{' during a task' if running else ''}: {terminal_text(why)}")
        if self._view is not None and running is not None and state is not None:
            self._view.input_finished(InputFinished(running, "error", why, "", state))
        if state is None or self._restarts >= MAX_RESTARTS:
            return
        self._restarts += 1
        self.state = None
        # In an agent's view the engine's session is the agent's: the new engine opens the main one.
        session = self._main_session or state.session_id
        self.agent_in_view = None
        if self._view is not None:
            self._view.show_event(Notice(f"restarting the engine on session {session}"))
        input_id = next(self._ids)
        self._restarts_by_id[input_id] = session
        self._queue.appendleft((input_id, f"/resume {session}"))
        self._notify_queue()
        self._connect()

    # -- inside -----------------------------------------------------------------------------------------------------
    def _in_background(self, session_id: str | None) -> bool:
        """Whether an event of ``session_id`` belongs to an agent that is not in view."""
        name = self._agent_sessions.get(session_id or "")
        return name is not None and name != self.agent_in_view

    def _follow_agents(self, event: Event) -> None:
        from engine.command_results import AgentShown, AgentsListed
        from engine.events import AgentsChanged

        match event:
            case AgentsChanged(agents=rows) | AgentsListed(agents=rows):
                self._agent_sessions = {str(row["session_id"]): str(row["name"]) for row in rows}
                if self.agent_in_view not in self._agent_sessions.values():
                    self.agent_in_view = None  # kept or discarded while in view: the engine went back to the main one
            case AgentShown(agent=agent):
                self.agent_in_view = agent

    def _adopt(self, state: EngineState) -> None:
        self.state = state
        if self.agent_in_view is None:
            self._main_session = state.session_id
        self._model = state.model
        self._set_mode(Mode.parse(state.mode))

    def _set_mode(self, mode: Mode) -> None:
        self._mode = mode
        if self._view is not None:
            self._view.mode_changed(mode.value)

    def _pop_queued(self, input_id: str) -> str:
        for index, (queued_id, text) in enumerate(self._queue):
            if queued_id == input_id:
                del self._queue[index]
                return text
        return ""

    def _show_failure(self, message: str) -> None:
        if self._view is not None:
            self._view.engine_failed(message)

    def _notify_queue(self) -> None:
        if self._view is not None:
            self._view.queue_changed(self.waiting)
