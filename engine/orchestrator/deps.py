"""What the turn pipeline steps are handed: explicit collaborators, never the orchestrator itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.config import Config
from engine.context.compaction import CompactionState
from engine.context.tokens import TokenCounter
from engine.context.system_prompt import Environment
from engine.events import Event
from engine.hooks.dispatcher import HookDispatcher
from engine.interaction import InteractionHandler
from engine.modes import Mode
from engine.orchestrator.recorder import TaskRecorder
from engine.orchestrator.session import Session
from engine.policy import PermissionPolicy
from engine.provider.base import ChatProvider
from engine.record import record
from engine.tools.base import ToolContext
from engine.tools.registry import ToolRegistry
from engine.workflow.loop_detection import LoopDetector

if TYPE_CHECKING:
    from engine.cost.meter import SpendMeter
    from engine.orchestrator.runtime import SessionCapture


@record
class ApprovalSettings:
    """How an `ask` is answered: by the user (interactive), by the configuration, or refused (headless)."""

    interactive: bool
    auto_approve_ask: bool
    # What the model is told when a call that needs approval is refused because nobody can be asked.
    refusal_hint: str = "Set auto_approve_ask or use a mode that allows it."

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
    # Builds the system prompt from the mode, the environment and the project instructions (main or sub-agent).
    build_prompt: Callable[[Mode, Environment, str], str]
    counter: TokenCounter
    compaction: CompactionState
    loops: LoopDetector
    # The configured hooks (SPEC 23); None for a sub-agent's turn.
    hooks: HookDispatcher | None = None
    # Whether the folder's own config applies (SPEC 19): a rule saved "always here" waits for trust otherwise.
    project_trusted: Callable[[], bool] = lambda: True
    # The front end shows the context's size. When it does not (headless text output), a request's messages are
    # counted only once its upper bound reaches the compaction threshold: the token encoding (a tenth of a second
    # or more, holding the interpreter) then never loads in a run that stays small.
    counts_shown: bool = True
    # Captures what each tool call changes in the workspace for undo (SPEC 7); None for a sub-agent's turn.
    capture: SessionCapture | None = None
    # Prices each request, keeps the spend and says when the next request would pass the budget (SPEC 27).
    spend: SpendMeter | None = None
