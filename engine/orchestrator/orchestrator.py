"""The orchestrator: one object per session that front ends drive. ``run_input`` dispatches (SPEC 2, ``dispatch``)
to the bang branch (``bang``), the slash branch (``slash``) or a turn (``turn``); ``cancel`` stops whatever runs. It
emits events and never formats for a screen. Switching sessions is ``switching``; its MCP servers are wired in
``mcp_wiring``, its tools in ``tooling``; its model provider is held by ``provider_slot``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from engine.capture.tool_capture import ToolCapture
from engine.config import Config
from engine.config.trust import folder_trusted
from engine.context.tokens import TokenCounter
from engine.context.system_prompt import Environment, build_system_prompt
from engine.errors import ProviderError
from engine.home_folder import own_config_folders
from engine.hooks.dispatcher import HookDispatcher
from engine.events import (
    Event,
    ModeChanged,
    ModelChanged,
    Notice,
    TurnFinished,
    TurnStarted,
)
from engine.interaction import InteractionHandler
from engine.messages import Message
from engine.modes import Mode
from engine.storage.provenance import StateKey
from engine.commands.cost import UsageTally
from engine.orchestrator.bus import EventBus
from engine.orchestrator.context_meter import session_context
from engine.orchestrator.deps import ApprovalSettings, TurnDeps
from engine.orchestrator.dispatch import TurnSteps, dispatch, run_prompt, run_task
from engine.orchestrator.interaction import CancellingInteraction
from engine.orchestrator.mcp_wiring import make_mcp
from engine.orchestrator.provider_slot import ProviderSlot
from engine.orchestrator.outcome import TurnOutcome
from engine.orchestrator.recorder import TaskRecorder
from engine.orchestrator.resume import ResumePlan
from engine.orchestrator.session import Session
from engine.orchestrator.slash import available_commands
from engine.provider.warm import warm_provider
from engine.commands.custom_run import extra_commands
from engine.orchestrator.tooling import make_registry, make_tool_context, tool_limits
from engine.orchestrator.turn import TurnState
from engine.orchestrator import switching
from engine.policy import PermissionPolicy
from engine.policy.presets import parse_preset
from engine.provider.base import ChatProvider
from engine.provider.profiles import effective_config, split_model_spec
from engine.skills import SkillCatalog
from engine.storage.session_lock import SessionLocks
from engine.storage.store import Store
from engine.tools.guard import Workspace
from engine.workflow.loop_detection import LoopDetector

if TYPE_CHECKING:
    from engine.context.compaction import CompactionState
    from engine.provider.server_window import ServerWindow
    from engine.storage.undo import UndoJournal


class Orchestrator:
    def __init__(
        self,
        *,
        workspace: Path,
        config: Config,
        interaction: InteractionHandler,
        provider: ChatProvider | None = None,
        interactive: bool = True,
        mode: Mode | None = None,
        env: dict[str, str] | None = None,
        model_pinned: bool = False,
        counts_shown: bool = True,
    ) -> None:
        """Opens ``.coder/coder.db`` (``StorageError`` with a readable message when it is damaged or locked) and
        starts a new, empty session. Imports nothing heavy: the provider is made at the first turn.
        ``counts_shown``: the front end shows the context's size (``UsageUpdated``); without it, messages are
        counted only when a compaction may be due (see ``TurnDeps.counts_shown``)."""
        self._base_config = config
        self.provider_profile, model = split_model_spec(config.model, config.providers)
        self.config = config = effective_config(config, self.provider_profile, model)
        self._env = dict(os.environ) if env is None else env
        self.workspace = Workspace(workspace, own_config_folders(self._env))
        self.interactive = interactive
        self.counts_shown = counts_shown
        # The model was named on the command line (``model_pinned``) or by CODER_MODEL: it wins over the one a
        # resumed session stored.
        self.model_pinned = model_pinned or bool(self._env.get("CODER_MODEL"))
        self._bus = EventBus()
        # What the server counted for this run's requests (``/cost``).
        self.usage = UsageTally()
        self._bus.subscribe(self.usage)
        self._interaction = CancellingInteraction(interaction, self)
        self._slot = ProviderSlot(provider, self._env, self._apply_server_window)
        self._approvals = ApprovalSettings.from_config(config, interactive=interactive)
        self._trusted_for_run = False
        self.skills = SkillCatalog.for_workspace(
            self.workspace.root, self._env, project_trusted=folder_trusted(self.workspace.root, self._env)
        )
        self.registry = make_registry(self)
        self.policy = PermissionPolicy.for_settings(config, config.mode, self.workspace.root)
        if mode is not None:
            self.policy.set_mode(mode)
        # The mode was named on the command line: it wins over the one a resumed session stored.
        self.mode_pinned = mode is not None
        self.mcp = make_mcp(self)
        self.tool_context = make_tool_context(self)
        self.token_counter = TokenCounter(config.model)
        self.loop_detector = LoopDetector()
        self.store = Store.open(self.workspace.root, state_key=StateKey.load(self._env))
        # One owner per session (SPEC 21): the lock of the session in use, held until the switch or exit.
        self.session_locks = SessionLocks(self.workspace.root)
        # The session whose history the front end already shows (the engine process sent it before this orchestrator
        # was made, ``engine.server.opening``): its ``/resume`` does not send it again.
        self.history_shown: str | None = None
        self.hooks = HookDispatcher(
            config.hooks, cwd=self.workspace.root, env=self._env,
            store=self.store, emit=self._bus.emit,
        )
        # Set by every switch of session (``switching.start_session``): the session in use, its undo journal, its
        # compaction state, and why it began, for its SessionStart hooks at its first request (None once they ran).
        self.session: Session
        self.undo: UndoJournal
        # What every tool call changes in the workspace, for the undo journal of the session in use.
        self.tool_capture = ToolCapture(self.workspace.root, config.undo, lambda: self.undo)
        self.compaction_state: CompactionState
        self.session_start: str | None
        switching.start_session(self, Session(self.workspace.root, **switching.session_args(self)))
        self._task: asyncio.Task[TurnOutcome] | None = None
        self._cancel_requested = False
        self.current_task_id: str | None = None

    # -- what front ends read -------------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self._task is not None

    @property
    def mode(self) -> Mode:
        return self.policy.mode

    @property
    def model(self) -> str:
        return self.session.model

    @property
    def missing_model_setup(self) -> str | None:
        """How to configure a model, while none is (no key, no server URL): front ends say so from the start."""
        return self._slot.missing_setup(self.config)

    @property
    def server_window(self) -> ServerWindow:
        """The context window a local server reports, asked in the background (SPEC 18)."""
        return self._slot.server_window

    @property
    def env(self) -> dict[str, str]:
        """The environment the configuration reads (the API key, ``CODER_*``, the user's config folder): the
        process's unless one was given."""
        return self._env

    @property
    def session_id(self) -> str:
        return self.session.id

    @property
    def workspace_root(self) -> Path:
        return self.workspace.root

    @property
    def context_window(self) -> int:
        return self.config.context_window

    @property
    def interaction(self) -> InteractionHandler:
        return self._interaction

    @property
    def approvals(self) -> ApprovalSettings:
        """How an approval is answered now: by the user, by the configuration, or refused."""
        return self._approvals

    @property
    def theme(self) -> str | None:
        """The TUI colour theme the configuration names, if any (``/theme`` changes it)."""
        return self.config.theme

    @property
    def trusted_for_run(self) -> bool:
        """``--trust``: the folder is trusted for this run without being remembered (SPEC 19, ``/trust``)."""
        return self._trusted_for_run

    @trusted_for_run.setter
    def trusted_for_run(self, trusted: bool) -> None:
        self._trusted_for_run = trusted
        self.skills.set_project_trusted(self.project_trusted)

    @property
    def project_trusted(self) -> bool:
        """Whether the workspace's own commands and hooks may run (SPEC 19): trusted for this run (``--trust``) or
        remembered as trusted in the user's config."""
        return self.trusted_for_run or folder_trusted(self.workspace.root, self._env)

    def slash_commands(self) -> list[tuple[str, str]]:
        """Every command for completion: the built-ins, then the user's and project's commands and the skills."""
        offered = available_commands(self)
        builtin = [(command.name, command.summary) for command in offered.values()]
        return builtin + [(name, f"{summary} ({where})") for name, _, summary, where in extra_commands(self, offered)]

    # -- what front ends do ---------------------------------------------------------------------------------------
    def subscribe(self, callback: Callable[[Event], None]) -> Callable[[], None]:
        return self._bus.subscribe(callback)

    def emit(self, event: Event) -> None:
        self._bus.emit(event)

    def set_mode(self, mode: Mode) -> None:
        if self.policy.set_mode(mode) is not mode:
            self._stays_in_plan()
        self._mode_changed()

    def set_preset(self, preset: str) -> None:
        self.policy.set_preset(preset)
        if self.policy.preset != parse_preset(preset):
            self._stays_in_plan()
        self._mode_changed()

    def set_model(self, model: str) -> None:
        """``model``, or ``profile:model`` to switch to a provider profile as well (``ConfigError`` if unknown)."""
        profile, name = split_model_spec(model, self._base_config.providers)
        profile = profile or self.provider_profile
        config = effective_config(self._base_config, profile, name)
        if config.provider != self.config.provider:
            self._slot.server_changed()
        self.provider_profile, self.config = profile, config
        self._ask_server()
        model = config.model
        self.session.model = model
        self.token_counter.set_model(model)
        self.store.update_session(self.session.id, model=model)
        self._bus.emit(ModelChanged(model))

    async def reconfigure(self, config: Config) -> None:
        """Applies a reloaded configuration (``/trust on|off``): approvals, permission rules and the provider
        follow it; the mode too when the configured mode or preset changed. The session's "always" answers reset."""
        mode_changed = (config.mode, config.permissions.preset) != (self.config.mode, self.config.permissions.preset)
        current_mode = self.policy.mode
        self.config = config
        self.hooks.replace(config.hooks)
        self.skills.set_project_trusted(self.project_trusted)
        self._ask_server()
        self._approvals = ApprovalSettings.from_config(config, interactive=self.interactive)
        self.policy = PermissionPolicy.for_settings(config, config.mode, self.workspace.root)
        self.policy.always_scopes = self.mcp.always_scopes
        if not mode_changed:
            self.policy.set_mode(current_mode)
        self.tool_context.limits = tool_limits(config)
        await self._slot.config_replaced()  # made from the config: the new one may point elsewhere
        self._mode_changed()
        await self.mcp.reload()  # a project's servers come or go with its trust

    def new_session(self) -> str:
        """Starts a new, empty session (``switching``); returns its id."""
        return switching.new_session(self)

    def fork_session(self, source_id: str | None = None) -> str:
        """Continues in a copy of this session, or of the stored one ``source_id`` names (``switching``)."""
        return switching.fork_session(self, source_id)

    def cancel(self) -> bool:
        """Cancels the running input: the stream is aborted, a bash group killed, an open approval dismissed."""
        if self._task is None or self._task.done():
            return False
        self._cancel_requested = True
        self._task.cancel()
        return True

    async def preload(self) -> None:
        """For an interactive front end, once its first frame is up: loads the model SDK and makes its client in a
        thread (a first input waits for this). Safe to skip: everything loads on first use anyway.
        ``start_background`` is the rest of what an interactive session starts."""
        with contextlib.suppress(ProviderError):
            await asyncio.to_thread(lambda: warm_provider(self.provider()))

    def start_background(self) -> None:
        """Starts the first capture of the workspace for undo (a thread), and watching the skill folders and the MCP
        servers in tasks of the loop. The engine host calls it when no input is waiting: watchfiles' import and the
        first skill reload are loop time, which a first request should not wait behind (a turn starts the MCP servers
        if nothing did). The token encoding is not loaded here: its tables weigh tens of megabytes, and a turn loads
        them only when a count must be exact (near the compaction threshold, or for a server that reports no usage;
        see ``token_loading``)."""
        self.tool_capture.start()
        self.skills.start()
        self.mcp.start()
        self._ask_server()

    def _ask_server(self) -> None:
        self._slot.ask_server(self.config)

    def _apply_server_window(self) -> None:
        self.config = self.server_window.applied(self._base_config, self.provider_profile, self.config)

    @property
    def context_window_source(self) -> str:
        """Where the context window in use comes from (``/status``)."""
        return self.server_window.source(self._base_config, self.provider_profile, self.config)

    async def aclose(self) -> None:
        """Cancels what runs and releases the provider's connections and the database. Called on exit."""
        task = self._task
        if task is not None and self.cancel():
            await asyncio.gather(task, return_exceptions=True)
        await self.mcp.aclose()
        await self.skills.stop()
        await self._slot.aclose()
        self.tool_capture.close()
        self.store.close()
        self.session_locks.release_all()

    async def run_input(self, text: str) -> TurnOutcome:
        """Runs one input to its end. A user cancellation is an outcome (``reason == "cancelled"``); cancelling the
        caller's own task still propagates."""
        text = text.strip()
        if not text:
            return TurnOutcome("completed")
        if self.busy:
            raise RuntimeError("an input is already running; queue it until the running one ends")
        turn_id = uuid.uuid4().hex[:12]
        self._cancel_requested = False
        self._bus.emit(TurnStarted(turn_id, text))
        self._task = asyncio.create_task(dispatch(self, text, turn_id))
        outcome = TurnOutcome("cancelled", "cancelled by the user")
        try:
            outcome = await self._task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
        finally:
            self._task = None
            self._bus.emit(TurnFinished(turn_id, outcome.reason, outcome.error))
            # After what the turn's end sends has gone out (a front end writes it in the next round of the loop).
            asyncio.get_running_loop().call_soon(self.store.settle)
        return outcome

    async def resume(self, plan: ResumePlan) -> TurnOutcome:
        """Switches to a stored session and finishes the turn the process died in, if an approval was pending in
        it (``switching``)."""
        return await switching.resume_session(self, plan)

    async def run_prompt(self, text: str, turn_id: str | None = None) -> TurnOutcome:
        """A turn with ``text`` as the user's request: typed, or made by a command (``dispatch``)."""
        return await run_prompt(self, text, turn_id)

    async def announce_context(self) -> None:
        """Tells the front end how much context the session in view holds (after /resume, --continue, /fork)."""
        self._bus.emit(
            await session_context(
                self.session,
                self.token_counter,
                self.context_window,
                root=self.workspace.root,
                mode=self.policy.mode,
                build_prompt=self._system_prompt,
            )
        )

    def note_to_model(self, text: str) -> None:
        """Adds a user-role note to the conversation (an undo, say), so the model's picture of the files stays true."""
        self.session.append(Message.user(text))

    def turn_deps(self, recorder: TaskRecorder | None = None) -> TurnDeps:
        """The collaborators a turn's steps are handed. Raises ``ProviderError`` when no model is configured."""
        return TurnDeps(
            session=self.session,
            provider=self.provider(),
            registry=self.registry,
            tool_context=self.tool_context,
            policy=self.policy,
            interaction=self._interaction,
            approvals=self._approvals,
            config=self.config,
            emit=self._bus.emit,
            recorder=recorder or TaskRecorder(self.store, self.session.id, None),
            build_prompt=self._system_prompt,
            counter=self.token_counter,
            compaction=self.compaction_state,
            loops=self.loop_detector,
            hooks=self.hooks,
            project_trusted=lambda: self.project_trusted,
            counts_shown=self.counts_shown,
            capture=self.tool_capture,
        )

    def provider(self) -> ChatProvider:
        """The model provider, made at first use. Raises ``ProviderError`` when no model is configured."""
        return self._slot.get(self.config)

    # -- inside -----------------------------------------------------------------------------------------------------
    def _stays_in_plan(self) -> None:
        self._bus.emit(
            Notice(
                f"the workspace {self.policy.plan_only}: this session stays read-only, in plan mode (start coder-tui "
                "in a project folder to change files)",
                level="warning",
            )
        )

    def _mode_changed(self) -> None:
        mode = self.policy.mode.value
        self.session.mode = mode
        self.store.update_session(self.session.id, mode=mode)
        self._bus.emit(ModeChanged(mode))

    async def run_task(self, state: TurnState, recorder: TaskRecorder, steps: TurnSteps) -> TurnOutcome:
        """Runs a task's steps with its lifecycle events and its undo snapshot around them (``dispatch``)."""
        return await run_task(self, state, recorder, steps)

    def _system_prompt(self, mode: Mode, environment: Environment, instructions: str) -> str:
        skills = [(skill.name, skill.description) for skill in self.skills.skills]
        return build_system_prompt(mode, environment, instructions=instructions, skills=skills)
