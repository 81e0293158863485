"""The orchestrator's MCP servers (SPEC 20): which servers it starts, and what follows when their tools or prompts
change (the next model call offers the new tools; front ends hear of the new slash commands), and who answers
what the servers ask (``mcp_requests``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.events import SlashCommandsChanged
from engine.mcp.manager import McpManager
from engine.mcp.specs import ServerSpec, server_specs
from engine.orchestrator.mcp_requests import SessionServerRequests

if TYPE_CHECKING:
    from engine.orchestrator.engine_parts import EngineParts


def make_mcp(orch: EngineParts) -> McpManager:
    """The manager of ``orch``'s MCP servers; its "always" answers are every session's permission policy's too
    (``switching.make_runtime``)."""

    def specs() -> tuple[list[ServerSpec], list[str]]:
        # The servers of the config, and of the project's .mcp.json when the folder is trusted (SPEC 19).
        return server_specs(orch.config, orch.workspace_root, project_trusted=orch.project_trusted)

    def tools_changed() -> None:
        tools = orch.registry.wire()
        for runtime in orch.runtimes.values():
            runtime.session.tools = tools

    manager = McpManager(
        specs,
        registry=orch.registry,
        workspace=orch.workspace_root,
        env=orch.env,
        emit=orch.emit,
        on_tools_changed=tools_changed,
        on_prompts_changed=lambda: orch.emit(SlashCommandsChanged(tuple(orch.slash_commands()))),
        requests=SessionServerRequests(orch),
    )
    return manager
