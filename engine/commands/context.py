"""``CommandContext``: what a slash command is handed (SPEC 1, 2026-12-07), never the orchestrator itself.

A command reads the session in view (``runtime``, ``session``, ``undo``), the store, the policy and the settings,
emits events, runs a prompt as a turn, and asks for the few session-wide changes it makes (a switch of session, of
model, of mode, of configuration) through the methods below. The orchestrator implements it; a test may hand a
command any object that does.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from engine.agents.control import AgentControl
    from engine.commands.usage import UsageTally
    from engine.cost.meter import SpendMeter
    from engine.config import Config
    from engine.context.tokens import TokenCounter
    from engine.events import Event
    from engine.interaction import InteractionHandler
    from engine.mcp.manager import McpManager
    from engine.modes import Mode
    from engine.orchestrator.deps import TurnDeps
    from engine.orchestrator.outcome import TurnOutcome
    from engine.orchestrator.resume import ResumePlan
    from engine.orchestrator.runtime import SessionRuntime
    from engine.orchestrator.session import Session
    from engine.policy import PermissionPolicy
    from engine.provider.base import ChatProvider
    from engine.skills import SkillCatalog
    from engine.storage.sessions.lock import SessionLocks
    from engine.storage.store import Store
    from engine.storage.undo.journal import UndoJournal
    from engine.tools.registry import ToolRegistry


class CommandContext(Protocol):
    # -- the session in view ----------------------------------------------------------------------------------------
    @property
    def runtime(self) -> SessionRuntime: ...

    @property
    def session(self) -> Session: ...

    @property
    def session_id(self) -> str: ...

    @property
    def undo(self) -> UndoJournal: ...

    @property
    def policy(self) -> PermissionPolicy: ...

    @property
    def mode(self) -> Mode: ...

    @property
    def model(self) -> str: ...

    # -- where it runs, and with what ---------------------------------------------------------------------------------
    @property
    def store(self) -> Store: ...

    @property
    def config(self) -> Config: ...

    @property
    def env(self) -> dict[str, str]: ...

    @property
    def workspace_root(self) -> Path: ...

    @property
    def interactive(self) -> bool: ...

    @property
    def interaction(self) -> InteractionHandler: ...

    @property
    def registry(self) -> ToolRegistry: ...

    @property
    def mcp(self) -> McpManager: ...

    @property
    def skills(self) -> SkillCatalog: ...

    @property
    def usage(self) -> UsageTally: ...

    @property
    def spend(self) -> SpendMeter: ...

    @property
    def token_counter(self) -> TokenCounter: ...

    @property
    def session_locks(self) -> SessionLocks: ...

    @property
    def provider_profile(self) -> str | None: ...

    @property
    def context_window(self) -> int: ...

    @property
    def context_window_source(self) -> str: ...

    @property
    def project_trusted(self) -> bool: ...

    @property
    def agents(self) -> AgentControl: ...

    # A model was named (configuration, command line, CODER_MODEL, /model): the server's list never replaces it.
    model_chosen: bool
    # ``--trust``: trusted for this run only; ``/trust off`` ends it.
    trusted_for_run: bool
    # The session whose history the front end already shows (``/resume`` does not send it again).
    history_shown: str | None

    # -- what a command does --------------------------------------------------------------------------------------
    def emit(self, event: Event) -> None: ...

    async def run_prompt(self, text: str, turn_id: str | None = None) -> TurnOutcome: ...

    def turn_deps(self) -> TurnDeps: ...

    def provider(self) -> ChatProvider: ...

    def note_to_model(self, text: str) -> None: ...

    async def announce_context(self) -> None: ...

    async def server_ready(self) -> str | None: ...

    def new_session(self) -> str: ...

    def fork_session(self, source_id: str | None = None) -> str: ...

    async def resume(self, plan: ResumePlan) -> TurnOutcome: ...

    def keep_open_locks(self) -> None: ...

    def set_mode(self, mode: Mode) -> None: ...

    def set_preset(self, preset: str) -> None: ...

    def set_model(self, model: str) -> None: ...

    def set_theme(self, theme: str) -> None: ...

    def set_vim(self, enabled: bool) -> None: ...

    async def reconfigure(self, config: Config) -> None: ...
