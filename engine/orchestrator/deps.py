"""What the turn pipeline steps are handed: explicit collaborators, never the orchestrator itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.config import Config
from engine.events import Event
from engine.interaction import InteractionHandler
from engine.orchestrator.recorder import TaskRecorder
from engine.orchestrator.session import Session
from engine.policy import PermissionPolicy
from engine.provider.base import ChatProvider
from engine.tools.base import ToolContext
from engine.tools.registry import ToolRegistry


@dataclass(frozen=True)
class ApprovalSettings:
    """How an `ask` is answered: by the user (interactive), by the configuration, or refused (headless)."""

    interactive: bool
    auto_approve_ask: bool

    @classmethod
    def from_config(cls, config: Config, *, interactive: bool) -> ApprovalSettings:
        auto = config.auto_approve_ask or not config.approval.interactive
        return cls(interactive=interactive and not auto, auto_approve_ask=auto)


@dataclass
class TurnDeps:
    session: Session
    provider: ChatProvider
    registry: ToolRegistry
    tool_context: ToolContext
    policy: PermissionPolicy
    interaction: InteractionHandler
    approvals: ApprovalSettings
    config: Config
    emit: Callable[[Event], None]
    recorder: TaskRecorder
