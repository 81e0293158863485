"""``EngineParts``: what the orchestrator's own modules (dispatch, switching, tooling, the MCP wiring, the bang
branch, sub-agents, the agent pool) are handed, as a ``Protocol``. It is a command's ``CommandContext`` and the
engine-wide parts behind it: the workspace, the open sessions, the capture, the hooks, the approval settings. The
orchestrator implements it; these modules never import the ``Orchestrator`` class, so it imports them without a
cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from engine.commands.context import CommandContext

if TYPE_CHECKING:
    import asyncio

    from engine.capture.tool_capture import ToolCapture
    from engine.context.system_prompt import Environment
    from engine.events import Event
    from engine.hooks.dispatcher import HookDispatcher
    from engine.modes import Mode
    from engine.orchestrator.deps import ApprovalSettings, TurnDeps
    from engine.orchestrator.outcome import TurnOutcome
    from engine.orchestrator.recorder import TaskRecorder
    from engine.orchestrator.runtime import OpenSessions, SessionRuntime
    from engine.orchestrator.state import TurnState
    from engine.orchestrator.turn import TurnSteps
    from engine.config import Config
    from engine.provider.server_window import ServerWindow
    from engine.tools.base import ToolContext
    from engine.tools.guard import Workspace


class EngineParts(CommandContext, Protocol):
    @property
    def workspace(self) -> Workspace: ...

    @property
    def runtimes(self) -> OpenSessions: ...

    @property
    def tool_context(self) -> ToolContext: ...

    @property
    def approvals(self) -> ApprovalSettings: ...

    @property
    def hooks(self) -> HookDispatcher: ...

    @property
    def tool_capture(self) -> ToolCapture: ...

    # The open sessions' captured tool calls take turns.
    @property
    def capture_turns(self) -> asyncio.Lock: ...

    @property
    def counts_shown(self) -> bool: ...

    # The model or the mode was named on the command line: it wins over the one a resumed session stored.
    @property
    def model_pinned(self) -> bool: ...

    @property
    def mode_pinned(self) -> bool: ...

    # The configuration as loaded, before the model's profile and the server's window applied.
    @property
    def base_config(self) -> Config: ...

    @property
    def server_window(self) -> ServerWindow: ...

    def ask_server(self) -> None: ...

    def active_runtime(self) -> SessionRuntime: ...

    def emitter(self, session_id: str) -> Callable[[Event], None]: ...

    def subscribe_tagged(self, callback: Callable[[Event, str | None], None]) -> Callable[[], None]: ...

    async def run_input(self, text: str, session_id: str | None = None) -> TurnOutcome: ...

    def slash_commands(self) -> list[tuple[str, str]]: ...

    def system_prompt(self, mode: Mode, environment: Environment, instructions: str) -> str: ...

    def turn_deps(self, recorder: TaskRecorder | None = None, runtime: SessionRuntime | None = None) -> TurnDeps: ...

    async def run_task(self, state: TurnState, recorder: TaskRecorder, steps: TurnSteps) -> TurnOutcome: ...
