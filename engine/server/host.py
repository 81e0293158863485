"""The serving loop: ``EngineHost`` drives one engine (``FrontEndEngine``, made by ``start_engine``) for one front end.

It loads the configuration and the engine, runs inputs one at a time from its queue, applies cancel and mode
changes, and hands every event and every interaction request to its ``Frontend``. A protocol adapter is a
``Frontend`` plus something that reads commands and calls the host:

- ``engine.server.lines.LineSession``: the JSON-lines protocol of ``engine.protocol`` (the TUI's engine process,
  over stdio, or in memory for tests);
- an ACP server would be another ``Frontend`` (events → ``session/update``, approvals →
  ``session/request_permission``) calling ``start`` / ``run_input`` / ``cancel`` / ``set_mode``. It awaits
  ``run_input`` for a prompt's stop reason instead of using the queue, and resumes a session with
  ``run_input("/resume <id>")``.

Nothing here knows how the front end looks or how messages are framed.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import logging
import os
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from engine.events import Event, Notice
from engine.interaction import (
    ApprovalAnswer,
    ApprovalDecision,
    ApprovalRequest,
    ElicitationAnswer,
    ElicitationRequest,
    QuestionAnswer,
    QuestionRequest,
    TrustDecision,
    TrustRequest,
)
from engine.modes import Mode
from engine.protocol.schema import PROTOCOL_VERSION, EngineState
from engine.record import record

if TYPE_CHECKING:
    from engine.config import Config
    from engine.orchestrator.front_end import FrontEndEngine
    from engine.orchestrator.outcome import TurnOutcome
    from engine.server.opening import OpenedSession

log = logging.getLogger(__name__)


@record
class EngineOptions:
    """How to start the engine: the command line's ``--cwd`` / ``--mode`` / ``--model`` and the environment."""

    workspace: Path
    mode: str | None = None
    model: str | None = None
    # The environment the engine reads (API keys, base URL); None = this process's.
    env: dict[str, str] | None = None
    # ``--trust``: the folder's own config applies whole for this run, not remembered (SPEC 19).
    trust: bool = False
    # An engine alone in its process freezes what start-up and the preload made (``gc.freeze``): those objects live
    # as long as the process, and the collector's full passes then stay short. Not for an engine sharing a process.
    freeze_heap: bool = False
    # ``--resume ID`` / ``--continue`` (``"--last"``): the session the front end opens with, whose history is sent
    # before the engine is built (``engine.server.opening``); the front end still sends its ``/resume``.
    opening: str | None = None
    # Where its sessions are marked as made: the full screen ("tui") or an editor ("acp").
    origin: str = "tui"


class Frontend(Protocol):
    """What the host needs from the front end it serves. The interaction methods are the engine's
    ``InteractionHandler``: they are awaited while the input waits, and cancelled when it is cancelled."""

    def event(self, event: Event, session_id: str | None = None) -> None:
        """An event of the session ``session_id`` (None: the engine's own)."""

    def input_started(self, input_id: str) -> None: ...

    def input_finished(self, input_id: str, outcome: TurnOutcome) -> None: ...

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision | ApprovalAnswer: ...

    async def ask_question(self, request: QuestionRequest) -> QuestionAnswer: ...

    async def request_trust(self, request: TrustRequest) -> TrustDecision: ...

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer: ...


class EngineHost:
    def __init__(self, options: EngineOptions, frontend: Frontend, *, config: Config | None = None) -> None:
        """``config``: use this configuration instead of loading the workspace's (tests)."""
        self.options = options
        self._frontend = frontend
        self._config = config
        self._mode: Mode | None = Mode.parse(options.mode) if options.mode else None
        self._pending: deque[tuple[str, str]] = deque()
        self._runner: asyncio.Task[None] | None = None
        self._preload: asyncio.Task[None] | None = None
        self._background_started = False
        # An input is waiting for the preload (its turn has not started): a cancel now stops it before it does.
        self._starting = False
        self._cancelled_early = False
        self._opened: OpenedSession | None = None
        self.orchestrator: FrontEndEngine | None = None
        # The queued input that runs now (a front end that attaches later is told it runs).
        self.running_input: str | None = None

    async def start(self) -> EngineState:
        """Loads the configuration and builds the orchestrator (raises on a damaged database or config); the model
        SDK then loads in the background, and queued inputs start once it has (the token encoding does not hold
        them, see ``_preloading``). The history of the
        session it opens with is sent first of all."""
        if self.options.opening is not None:
            self._send_opening(self.options.opening)
            await asyncio.sleep(0)  # a front end in another process gets it now, before the engine's imports
        from engine.orchestrator.front_end import start_engine
        from engine.storage.sessions.rebuild import rebuilt_notice

        config = self._config
        if config is None:
            config = await self._load_config()
        if self.options.model:
            config = config.model_copy(update={"model": self.options.model})
        orchestrator = start_engine(
            workspace=self.options.workspace,
            config=config,
            interaction=self._frontend,
            mode=self._mode,
            env=self.options.env,
            model_pinned=bool(self.options.model),
            origin=self.options.origin,
        )
        orchestrator.trusted_for_run = self.options.trust
        if self._opened is not None:
            orchestrator.session_locks.adopt(self._opened.lock)
            orchestrator.history_shown = self._opened.session_id
        if rebuilt := rebuilt_notice(orchestrator.store):
            self._frontend.event(Notice(rebuilt, "warning"))
        if self.options.origin == "tui" and (waiting := self._engine_left_running()) is not None:
            self._frontend.event(Notice(
                f"agents left running in this folder go on in another engine (pid {waiting}): quit, then "
                "coder-tui --attach shows them", "warning"
            ))
        orchestrator.subscribe_tagged(self._frontend.event)
        self.orchestrator = orchestrator
        self._freeze_heap()
        if self.options.opening is None and not (self._pending and _resumes(self._pending[0][1])):
            self._preload = self._preloading(orchestrator)
        # else (--resume, --continue): the session is restored first, and the preload starts once it is (below);
        # resuming needs neither the SDK nor the token encoding, and the threads loading them would slow it down.
        self._drain()
        return self.state()

    def state(self) -> EngineState:
        orchestrator = self._require()
        return EngineState(
            protocol_version=PROTOCOL_VERSION,
            workspace=str(orchestrator.workspace_root),
            session_id=orchestrator.session_id,
            model=orchestrator.model,
            mode=orchestrator.mode.value,
            context_window=orchestrator.context_window,
            slash_commands=tuple(orchestrator.slash_commands()),
            theme=orchestrator.theme,
            vim=orchestrator.config.vim,
            missing_model_setup=orchestrator.missing_model_setup,
            status_line_command=orchestrator.config.status_line.command,
            status_line_timeout_s=orchestrator.config.status_line.timeout,
        )

    @property
    def busy(self) -> bool:
        return self._runner is not None

    def catch_up(self) -> list[Event]:
        """What a front end that attaches to the running engine needs besides its state: the main session back in
        view, its history and todos, and the agents (SPEC 26)."""
        from engine.events import AgentsChanged, TodosChanged
        from engine.orchestrator.resume import history_restored
        from engine.storage.errors import StorageError

        orchestrator = self._require()
        if orchestrator.runtime.agent is not None:
            orchestrator.agents.show(None)
        events: list[Event] = []
        with contextlib.suppress(StorageError):  # a session with nothing stored yet has no history to show
            events.append(history_restored(orchestrator.store, orchestrator.session_id))
        events.append(TodosChanged(tuple(orchestrator.runtime.tool_context.todos.items)))
        events.append(AgentsChanged(orchestrator.agents.rows()))
        return events

    def submit(self, input_id: str, text: str) -> None:
        """Queues an input (also before ``start``); the front end hears ``input_started`` / ``input_finished``."""
        self._pending.append((input_id, text))
        self._drain()

    async def run_input(self, text: str) -> TurnOutcome:
        """Runs one input now and returns its outcome (for a front end that awaits each prompt itself)."""
        from engine.orchestrator.outcome import TurnOutcome

        orchestrator = self._require()
        # A resume needs neither the SDK nor the token encoding: it does not wait for them.
        if self._preload is not None and not self._preload.done() and not _resumes(text):
            self._starting, self._cancelled_early = True, False
            try:
                # Not cancelled with this input: the next one needs the SDK just as much.
                with contextlib.suppress(Exception):
                    await asyncio.shield(self._preload)
            finally:
                self._starting = False
            if self._cancelled_early:
                return TurnOutcome("cancelled", "cancelled by the user")
        return await orchestrator.run_input(text)

    def cancel(self) -> bool:
        """Stops the running input: the stream, a bash group, an open approval. Queued inputs still run."""
        if self.orchestrator is not None and self.orchestrator.cancel():
            return True
        if self._starting:
            self._cancelled_early = True
            return True
        return False

    def cancel_agents(self) -> int:
        """Stops every running agent (SPEC 26) and says how many; the main session's input runs on."""
        return 0 if self.orchestrator is None else self.orchestrator.cancel_agents()

    def set_mode(self, mode: str) -> None:
        chosen = Mode.parse(mode)
        if self.orchestrator is None:
            self._mode = chosen
        else:
            self.orchestrator.set_mode(chosen)  # emits ModeChanged

    async def aclose(self) -> None:
        """Drops queued inputs, cancels the running one, releases connections and the database."""
        self._pending.clear()
        for task in (self._runner, self._preload):
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        if self.orchestrator is not None:
            await self.orchestrator.aclose()
        if self._opened is not None:  # not taken over when the engine could not start
            self._opened.lock.release()

    # -- inside -----------------------------------------------------------------------------------------------------
    def _send_opening(self, session_ref: str) -> None:
        from engine.server.opening import open_session

        env = dict(os.environ) if self.options.env is None else self.options.env
        if (opened := open_session(self.options.workspace, session_ref, env)) is not None:
            self._opened, history = opened
            self._frontend.event(history)

    def _engine_left_running(self) -> int | None:
        """The pid of an engine of this workspace left running by its UI (SPEC 26), when one waits for --attach."""
        from engine.server import rendezvous

        try:
            found = rendezvous.rendezvous_for(self.options.workspace, self.options.env)
        except rendezvous.RendezvousError:
            return None
        pid = rendezvous.read_pid(found)
        return pid if pid is not None and pid != os.getpid() and rendezvous.alive(pid) else None

    def _require(self) -> FrontEndEngine:
        if self.orchestrator is None:
            raise RuntimeError("the engine has not started")
        return self.orchestrator

    async def _load_config(self) -> Config:
        """Loads the configuration; a folder whose own config needs trust asks the front end once (SPEC 19)."""
        startup = await asyncio.to_thread(importlib.import_module, "engine.config.startup")
        workspace = self.options.workspace
        env = dict(os.environ) if self.options.env is None else self.options.env
        loaded = await startup.load_config_asking_trust(workspace, env, self._frontend, trust=self.options.trust)
        for text, level in startup.config_notices(loaded, workspace):
            self._frontend.event(Notice(text, level))
        return loaded.config  # type: ignore[no-any-return]

    def _preloading(self, orchestrator: FrontEndEngine) -> asyncio.Task[None]:
        """The orchestrator's preload; then what it loaded (the model SDK) is frozen too, and the background work
        (the token encoding, the skill and MCP watchers) starts unless an input is waiting or running (then it
        starts when that input ends)."""
        task = asyncio.create_task(orchestrator.preload())
        task.add_done_callback(lambda _: self._after_preload())
        return task

    def _after_preload(self) -> None:
        self._freeze_heap()
        if self._runner is None and not self._pending:
            self._start_background()

    def _start_background(self) -> None:
        if not self._background_started and self.orchestrator is not None:
            self._background_started = True
            self.orchestrator.start_background()

    def _freeze_heap(self) -> None:
        if self.options.freeze_heap:
            gc.freeze()
            gc.enable()  # the engine process starts with collection off (``engine.server.__main__``)

    def _drain(self) -> None:
        if self.orchestrator is not None and self._runner is None and self._pending:
            self._runner = asyncio.create_task(self._run_pending())

    async def _run_pending(self) -> None:
        try:
            while self._pending:
                input_id, text = self._pending.popleft()
                self.running_input = input_id
                self._frontend.input_started(input_id)
                try:
                    outcome = await self.run_input(text)
                finally:
                    self.running_input = None
                self._frontend.input_finished(input_id, outcome)
                if self._preload is not None and self._preload.done():
                    self._start_background()
                if self._preload is None and self.orchestrator is not None:
                    self._preload = self._preloading(self.orchestrator)
        finally:
            self._runner = None


def _resumes(text: str) -> bool:
    """A ``/resume <id>`` (what ``--resume`` and ``--continue`` queue first)."""
    return text.strip().startswith("/resume ")
