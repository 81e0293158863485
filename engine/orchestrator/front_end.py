"""What a front end drives (the engine process's serving loop, headless mode): ``FrontEndEngine``, a Protocol, and
``start_engine``, which makes one. A front end sees what commands see (``CommandContext``) and the few things only
a front end does: run an input, cancel it, listen to the events, start the background work, close. It never
imports the ``Orchestrator`` class (an import-linter contract).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ParamSpec, Protocol

from engine.commands.context import CommandContext
from engine.orchestrator.orchestrator import Orchestrator

if TYPE_CHECKING:
    from engine.events import Event
    from engine.orchestrator.outcome import TurnOutcome
    from engine.tools.base import ToolContext

P = ParamSpec("P")


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


def _as_front_end(make: Callable[P, Orchestrator]) -> Callable[P, FrontEndEngine]:
    """``make`` with its parameters kept and its result seen only as a ``FrontEndEngine``."""
    return make


start_engine = _as_front_end(Orchestrator)
"""``start_engine(workspace=..., config=..., interaction=..., ...)``: the engine over ``workspace`` with a new, empty
session; it takes the ``Orchestrator``'s keyword arguments (``StorageError`` when its database is damaged or
locked)."""
