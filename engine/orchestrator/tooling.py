"""The tools an orchestrator offers and what every tool call is given: the registry (the core tools, skills, the
question tool, fetch, sub-agents), the workspace's tool context and the limits the configuration sets."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.config import Config
from engine.orchestrator.fetch_gate import PolicyFetchGate
from engine.orchestrator.subagent import NestedTurnRunner
from engine.policy import PermissionPolicy
from engine.tools.base import ToolContext, ToolLimits
from engine.tools.guard import Workspace
from engine.tools.fetch import FetchTool
from engine.tools.question import QuestionTool
from engine.tools.registry import ToolRegistry, core_tools
from engine.tools.skill import SkillTool
from engine.tools.task import TaskTool

if TYPE_CHECKING:
    from engine.orchestrator.engine_parts import EngineParts


def make_registry(orch: EngineParts) -> ToolRegistry:
    config = orch.config
    return ToolRegistry(
        [
            *core_tools(),
            SkillTool(orch.skills),
            QuestionTool(orch.interaction),
            FetchTool(timeout_s=config.fetch.timeout, max_bytes=config.fetch.max_bytes),
            TaskTool(NestedTurnRunner(orch)),
        ]
    )


def make_tool_context(
    orch: EngineParts, policy: Callable[[], PermissionPolicy], workspace: Workspace | None = None
) -> ToolContext:
    """What every tool call of one session is given; fetch asks that session's ``policy`` at the time of the
    call. ``workspace``: the session's own (an agent's worktree), else the orchestrator's."""
    return ToolContext(
        workspace=workspace or orch.workspace,
        limits=tool_limits(orch.config),
        fetch_gate=PolicyFetchGate(policy, lambda: orch.config.fetch.allow_private),
    )


def tool_limits(config: Config) -> ToolLimits:
    return ToolLimits(
        bash_timeout_s=config.bash.timeout,
        bash_max_timeout_s=config.bash.max_timeout,
        output_cap_bytes=config.bash.output_cap_bytes,
    )
