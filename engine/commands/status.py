"""``/status`` (SPEC 23): what this session runs with, in one view — model, provider, base URL, session, mode,
context used, and the folder's trust, sandbox and MCP servers."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from engine.events import CommandResult

if TYPE_CHECKING:
    from engine.orchestrator.orchestrator import Orchestrator

DEFAULT_BASE_URL = "https://api.openai.com/v1 (the SDK's default)"


async def status_command(orch: Orchestrator, arg: str) -> CommandResult:
    session = orch.session
    used, source = await asyncio.to_thread(
        orch.token_counter.meter, session.messages, system=session.system_prompt, tools=session.tools
    )
    window = orch.context_window
    rows: list[tuple[str, str]] = [
        ("model", orch.model),
        ("provider", f"{orch.provider_profile or 'default'} (key from ${orch.config.provider.api_key_env})"),
        ("base URL", orch.config.provider.base_url or DEFAULT_BASE_URL),
        ("session", f"{session.id} ({_count(len(session.messages), 'message')})"),
        ("mode", f"{orch.mode.value} (permissions: {orch.policy.preset})"),
        ("context", f"{used:,} of {window:,} tokens ({used * 100 // window}%)"),
        ("counted", source),
        ("window", orch.context_window_source),
        ("trust", _trust(orch)),
        ("sandbox", orch.policy.sandbox_description()),
        ("MCP", _mcp_servers(orch)),
    ]
    width = max(len(key) for key, _ in rows)
    text = "\n".join(f"  {key.ljust(width)}  {value}" for key, value in rows)
    data: dict[str, Any] = {
        "model": orch.model,
        "provider_profile": orch.provider_profile,
        "base_url": orch.config.provider.base_url,
        "session_id": session.id,
        "mode": orch.mode.value,
        "preset": orch.policy.preset,
        "context_tokens": used,
        "context_window": window,
        "context_source": source,
        "context_window_source": orch.context_window_source,
        "sandbox": orch.policy.sandbox_description(),
        "trusted": orch.project_trusted,
        "mcp_servers": {name: c.state.value for name, c in orch.mcp.connections.items()},
        "rows": [list(row) for row in rows],
    }
    return CommandResult.slash("/status", "status:\n" + text, **data)


def _trust(orch: Orchestrator) -> str:
    if orch.trusted_for_run:
        return "trusted for this run (--trust)"
    if orch.project_trusted:
        return "trusted (/trust off to change)"
    return "not trusted (/trust shows what that limits)"


def _mcp_servers(orch: Orchestrator) -> str:
    connections = orch.mcp.connections
    if not connections:
        return "none configured (/mcp)"
    return ", ".join(
        f"{name} ({connection.state.value}, {_count(len(orch.mcp.tools_of(name)), 'tool')})"
        for name, connection in connections.items()
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
