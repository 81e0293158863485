"""The orchestrator: what front ends drive. It holds the open sessions, each one ``SessionRuntime`` value
(``runtime``), and the one in view (``in_view``). ``run_input`` dispatches (SPEC 2, ``dispatch``) to the bang branch
(``bang``), the slash branch (``slash``) or a turn (``turn``); ``cancel`` stops whatever runs. It emits events, each
tagged with its session, and never formats for a screen. Switching sessions is ``switching``; its MCP servers are
wired in ``mcp_wiring``, its tools in ``tooling``; the configuration in force and the model provider made from it are
``run_config``. Its own modules are handed it as ``EngineParts`` (a Protocol), never import it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
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
from engine.events import Event, ModelChanged, Notice
from engine.interaction import InteractionHandler
from engine.messages import Message
from engine.modes import Mode
from engine.storage.provenance import StateKey
from engine.commands.usage import UsageTally
from engine.cost.ledger import SpendLedger, ledger_path
from engine.cost.meter import SpendMeter
from engine.orchestrator.agent_pool import AgentPool
from engine.orchestrator.bus import EventBus
from engine.orchestrator.context_meter import session_context
from engine.orchestrator.deps import ApprovalSettings, TurnDeps
from engine.orchestrator.dispatch import run_input, run_prompt, run_task, turn_deps
from engine.orchestrator.in_view import SessionsInView
from engine.orchestrator.interaction import CancellingInteraction
from engine.orchestrator.mcp_wiring import make_mcp
from engine.orchestrator.run_config import RunConfig
from engine.orchestrator.outcome import TurnOutcome
from engine.orchestrator.recorder import TaskRecorder
from engine.orchestrator.resume import ResumePlan
from engine.orchestrator.runtime import OpenSessions, SessionRuntime
from engine.orchestrator.session import Session
from engine.orchestrator.slash import available_commands
from engine.provider.warm import warm_provider
from engine.commands.custom_run import extra_commands
from engine.orchestrator.tooling import make_registry, tool_limits
from engine.orchestrator.turn import TurnState, TurnSteps
from engine.orchestrator import switching
from engine.policy import PermissionPolicy
from engine.provider.base import ChatProvider
from engine.provider.server_models import model_configured
from engine.orchestrator import server_answer
from engine.skills import SkillCatalog
from engine.storage.sessions.lock import SessionLocks
from engine.storage.store import Store
from engine.storage.undo.session_journal import undo_objects
from engine.tools.guard import Workspace

if TYPE_CHECKING:
    from engine.provider.server_window import ServerWindow


class Orchestrator(SessionsInView):
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
        origin: str = "tui",
    ) -> None:
        """Opens ``.coder/coder.db`` (``StorageError`` with a readable message when it is damaged or locked) and
        starts a new, empty session. Imports nothing heavy: the provider is made at the first turn.
        ``counts_shown``: the front end shows the context's size (``UsageUpdated``); without it, messages are
        counted only when a compaction may be due (see ``TurnDeps.counts_shown``). ``origin``: the front end its
        sessions are marked with ("tui", "headless", "acp")."""
        self._env = dict(os.environ) if env is None else env
        # The configuration in force, the model provider made from it, and how approvals are answered.
        self.run_config = RunConfig(
            config, env=self._env, provider=provider, interactive=interactive,
            on_answer=lambda: server_answer.apply_server_answer(self),
        )
        config = self.config
        self.workspace = Workspace(workspace, own_config_folders(self._env))
        self.interactive = interactive
        self.counts_shown = counts_shown
        # The model was named on the command line (``model_pinned``) or by CODER_MODEL: it wins over the one a
        # resumed session stored.
        self.model_pinned = model_pinned or bool(self._env.get("CODER_MODEL"))
        # A model was named somewhere: the server's list never replaces it (SPEC 18, "just the URL").
        self.model_chosen = self.model_pinned or model_configured(self.base_config)
        self._bus = EventBus()
        # What the server counted for this run's requests (``/cost``).
        self.usage = UsageTally()
        self._bus.subscribe(self.usage)
        self.spend = SpendMeter(SpendLedger(ledger_path(self._env)))
        self._interaction = CancellingInteraction(interaction, self)
        self._trusted_for_run = False
        self.skills = SkillCatalog.for_workspace(
            self.workspace.root, self._env, project_trusted=folder_trusted(self.workspace.root, self._env)
        )
        self.registry = make_registry(self)
        policy = PermissionPolicy.for_settings(config, config.mode, self.workspace.root)
        if mode is not None:
            policy.set_mode(mode)
        # The mode was named on the command line: it wins over the one a resumed session stored.
        self.mode_pinned = mode is not None
        self.mcp = make_mcp(self)
        self.token_counter = TokenCounter(config.model)
        self.store = Store.open(self.workspace.root, state_key=StateKey.load(self._env), origin=origin)
        # One owner per session (SPEC 21): the lock of the session in use, held until the switch or exit.
        self.session_locks = SessionLocks(self.workspace.root)
        # The session whose history the front end already shows (the engine process sent it before this orchestrator
        # was made, ``engine.server.opening``): its ``/resume`` does not send it again.
        self.history_shown: str | None = None
        self.hooks = HookDispatcher(
            config.hooks, cwd=self.workspace.root, env=self._env,
            audit=self.store.audit, emit=self.emit,
        )
        # What every tool call changes in the workspace, for the undo journal of the session whose call it is (the
        # journals keep their copies in its content store); the open sessions' captured calls take turns
        # (``SessionCapture``).
        self.tool_capture = ToolCapture(self.workspace.root, config.undo, undo_objects(self.workspace.root))
        self.capture_turns = asyncio.Lock()
        # The open sessions by id, and the one in view (which commands act on and front ends show).
        self.runtimes = OpenSessions(self.session_locks)
        first = Session(self.workspace.root, **switching.session_args(self, policy=policy))
        self.session_locks.claim(first.id)
        self.store.sessions.create(model=first.model, mode=first.mode, session_id=first.id)
        self.runtimes.replace_view(switching.make_runtime(self, first, policy, restored=False))
        # Sessions on worktrees of their own, running beside this one (SPEC 26).
        self.agents = AgentPool(self)

    # -- the sessions (the one in view: ``SessionsInView``) -------------------------------------------------------
    def open_session(self) -> SessionRuntime:
        """A new, empty session beside the one in view, whose turns run at the same time (``switching``)."""
        return switching.open_session(self)

    # -- what front ends read -------------------------------------------------------------------------------------
    @property
    def config(self) -> Config:
        return self.run_config.config

    @config.setter
    def config(self, config: Config) -> None:
        self.run_config.config = config

    @property
    def provider_profile(self) -> str | None:
        """The provider profile in use (``/model profile:name`` switches it), None for the configured one."""
        return self.run_config.profile

    @property
    def missing_model_setup(self) -> str | None:
        """How to configure a model, while none is (no key, no server URL): front ends say so from the start."""
        return self.run_config.missing_model_setup

    @property
    def server_window(self) -> ServerWindow:
        """The context window a local server reports, asked in the background (SPEC 18)."""
        return self.run_config.server_window

    @property
    def env(self) -> dict[str, str]:
        """The environment the configuration reads (the API key, ``CODER_*``, the user's config folder): the
        process's unless one was given."""
        return self._env

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
        return self.run_config.approvals

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

    def subscribe_tagged(self, callback: Callable[[Event, str | None], None]) -> Callable[[], None]:
        """Every event with the id of the session it belongs to (None: the engine's own, before any session)."""
        return self._bus.subscribe_tagged(callback)

    def emit(self, event: Event) -> None:
        """An event of the session whose input runs here (``active_runtime``)."""
        active = self.runtimes.active()
        self._bus.emit(event, active.id if active is not None else None)

    def cancel_agents(self) -> int:
        """Stops every running agent (SPEC 26), whatever runs in the main session; the session in view hears how
        many."""
        count = self.agents.cancel_all()
        self._bus.emit(Notice(f"cancelled {count} agent{'s' if count != 1 else ''}"), self.runtime.id)
        return count

    def emitter(self, session_id: str | None) -> Callable[[Event], None]:
        """Emits events tagged with ``session_id`` (None: the engine's own)."""
        bus = self._bus
        return lambda event: bus.emit(event, session_id)

    def set_model(self, model: str) -> None:
        """``model``, or ``profile:model`` to switch to a provider profile as well (``ConfigError`` if unknown)."""
        model = self.run_config.switch_model(model)
        self.model_chosen = True
        self.session.model = model
        self.token_counter.set_model(model)
        self.store.sessions.update(self.session.id, model=model)
        self.emit(ModelChanged(model))

    def set_theme(self, theme: str) -> None:
        """The TUI colour theme for this run (``/theme``; the front end applies it)."""
        self.config = self.config.model_copy(update={"theme": theme})

    def set_vim(self, enabled: bool) -> None:
        """Vim keys in the prompt for this run (``/vim``; the front end applies it)."""
        self.config = self.config.model_copy(update={"vim": enabled})

    async def reconfigure(self, config: Config) -> None:
        """Applies a reloaded configuration (``/trust on|off``): approvals, permission rules and the provider
        follow it; the mode too when the configured mode or preset changed. The session's "always" answers reset."""
        mode_changed = (config.mode, config.permissions.preset) != (self.config.mode, self.config.permissions.preset)
        self.run_config.replace(config)
        self.model_chosen = self.model_pinned or model_configured(config)
        self.hooks.replace(config.hooks)
        self.skills.set_project_trusted(self.project_trusted)
        for runtime in self.runtimes.values():
            runtime.reconfigure(config, self.workspace.root, always_scopes=self.mcp.always_scopes,
                                limits=tool_limits(config), keep_mode=not mode_changed)
        await self.run_config.slot.config_replaced()  # made from the config: the new one may point elsewhere
        self._mode_changed()
        await self.mcp.reload()  # a project's servers come or go with its trust

    def new_session(self) -> str:
        """Starts a new, empty session (``switching``); returns its id."""
        return switching.new_session(self)

    def fork_session(self, source_id: str | None = None) -> str:
        """Continues in a copy of this session, or of the stored one ``source_id`` names (``switching``)."""
        return switching.fork_session(self, source_id)

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
        self.ask_server()

    def ask_server(self) -> None:
        """Asks the configured server for its window and models, in the background."""
        self.run_config.ask_server()

    async def server_ready(self) -> str | None:
        """Waits for the server's answer, so a turn and headless commands use its window and model; returns why a
        turn cannot start (``server_answer``)."""
        return await server_answer.server_ready(self)

    @property
    def base_config(self) -> Config:
        """The configuration as loaded, before the model's profile and the server's window applied."""
        return self.run_config.base

    @property
    def context_window_source(self) -> str:
        """Where the context window in use comes from (``/status``)."""
        return self.run_config.context_window_source

    async def aclose(self) -> None:
        """Cancels what runs and releases the provider's connections and the database. Called on exit."""
        await self.agents.aclose()
        tasks = [runtime.input_task for runtime in self.runtimes.values() if runtime.cancel()]
        await asyncio.gather(*(task for task in tasks if task is not None), return_exceptions=True)
        await self.mcp.aclose()
        await self.skills.stop()
        await self.run_config.slot.aclose()
        self.tool_capture.close()
        self.store.close()
        self.session_locks.release_all()

    async def run_input(self, text: str, session_id: str | None = None) -> TurnOutcome:
        """Runs one input to its end in the session in view, or in the open session ``session_id`` (``dispatch``).
        A user cancellation is an outcome (``reason == "cancelled"``); cancelling the caller's own task still
        propagates."""
        runtime = self.runtime if session_id is None else self.runtimes[session_id]
        if session_id is None and runtime.agent is not None:
            runtime = self.agents.input_runtime(runtime, text)
            if runtime is None:
                return TurnOutcome("error", "the agent in view is working")
        return await run_input(self, runtime, text)

    async def resume(self, plan: ResumePlan) -> TurnOutcome:
        """Switches to a stored session and finishes the turn the process died in, if an approval was pending in
        it (``switching``)."""
        return await switching.resume_session(self, plan)

    async def run_prompt(self, text: str, turn_id: str | None = None) -> TurnOutcome:
        """A turn with ``text`` as the user's request: typed, or made by a command (``dispatch``)."""
        return await run_prompt(self, self.runtime, text, turn_id)

    async def announce_context(self) -> None:
        """Tells the front end how much context the session in view holds (after /resume, --continue, /fork)."""
        self.emit(
            await session_context(
                self.session,
                self.token_counter,
                self.context_window,
                root=self.workspace.root,
                mode=self.policy.mode,
                build_prompt=self.system_prompt,
            )
        )

    def note_to_model(self, text: str) -> None:
        """Adds a user-role note to the conversation (an undo, say), so the model's picture of the files stays true."""
        self.session.append(Message(role="user", content=text, origin="note"))

    def turn_deps(self, recorder: TaskRecorder | None = None, runtime: SessionRuntime | None = None) -> TurnDeps:
        """The collaborators a turn's steps are handed, for the session in view or ``runtime``'s (``dispatch``)."""
        return turn_deps(self, runtime or self.runtime, recorder)

    def provider(self) -> ChatProvider:
        """The model provider, made at first use. Raises ``ProviderError`` when no model is configured."""
        return self.run_config.provider()

    # -- inside -----------------------------------------------------------------------------------------------------
    async def run_task(self, state: TurnState, recorder: TaskRecorder, steps: TurnSteps) -> TurnOutcome:
        """Runs a task's steps with its lifecycle events and its undo snapshot around them (``dispatch``)."""
        return await run_task(self, self.runtime, state, recorder, steps)

    def system_prompt(self, mode: Mode, environment: Environment, instructions: str) -> str:
        skills = [(skill.name, skill.description) for skill in self.skills.skills]
        return build_system_prompt(mode, environment, instructions=instructions, skills=skills)
