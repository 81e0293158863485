"""What a front end drives (the engine process's serving loop, headless mode): ``FrontEndEngine``, a Protocol, and
``start_engine``, which makes one. A front end sees what commands see (``CommandContext``) and the few things only
a front end does: run an input, cancel it, listen to the events, start the background work, close. It never
imports the ``Orchestrator`` class (an import-linter contract).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from engine.commands.context import CommandContext
from engine.orchestrator.orchestrator import Orchestrator

if TYPE_CHECKING:
    from engine.config import Config
    from engine.events import Event
    from engine.interaction import InteractionHandler
    from engine.modes import Mode
    from engine.orchestrator.outcome import TurnOutcome
    from engine.provider.base import ChatProvider
    from engine.tools.base import ToolContext


class FrontEndEngine(CommandContext, Protocol):
    @property
    def tool_context(self) -> ToolContext: ...

    # How to configure a model, while none is: front ends say so from the start.
    @property
    def missing_model_setup(self) -> str | None: ...

    @property
    def theme(self) -> str | None: ...

    def slash_commands(self) -> list[tuple[str, str]]: ...

    def subscribe(self, callback: Callable[[Event], None]) -> Callable[[], None]: ...

    def subscribe_tagged(self, callback: Callable[[Event, str | None], None]) -> Callable[[], None]: ...

    async def run_input(self, text: str, session_id: str | None = None) -> TurnOutcome: ...

    def cancel(self, session_id: str | None = None) -> bool: ...

    def cancel_agents(self) -> int: ...

    async def preload(self) -> None: ...

    def start_background(self) -> None: ...

    async def aclose(self) -> None: ...


def start_engine(
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
) -> FrontEndEngine:
    """The engine over ``workspace`` with a new, empty session (see ``Orchestrator``; ``StorageError`` when its
    database is damaged or locked)."""
    return Orchestrator(
        workspace=workspace,
        config=config,
        interaction=interaction,
        provider=provider,
        interactive=interactive,
        mode=mode,
        env=env,
        model_pinned=model_pinned,
        counts_shown=counts_shown,
        origin=origin,
    )
