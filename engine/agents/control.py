"""``AgentControl``: what a command may do with the agents (``/spawn``, ``/agents``, ``/merge``), as a Protocol, so
commands never import the orchestrator's pool (``engine.orchestrator.agent_pool.AgentPool`` implements it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from engine.agents.records import AgentRecord
    from engine.modes import Mode
    from engine.orchestrator.runtime import SessionRuntime


class AgentControl(Protocol):
    def get(self, name: str) -> AgentRecord: ...

    def rows(self) -> tuple[dict[str, Any], ...]: ...

    async def spawn(self, task: str, mode: Mode | None = None, name: str | None = None) -> AgentRecord: ...

    def cancel(self, name: str) -> bool: ...

    def cancel_all(self) -> int: ...

    def show(self, name: str | None) -> SessionRuntime: ...

    def keep(self, name: str) -> AgentRecord: ...

    async def discard(self, name: str) -> AgentRecord: ...

    async def commit_work(self, name: str) -> None: ...
