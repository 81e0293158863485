"""``/status`` (SPEC 23): what this session runs with, in one view — model, provider, base URL, session, mode,
context used, and the folder's trust, sandbox and MCP servers."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from engine.settings_results import StatusShown

if TYPE_CHECKING:
    from engine.commands.context import CommandContext

DEFAULT_BASE_URL = "https://api.openai.com/v1 (the SDK's default)"


async def status_command(ctx: CommandContext, arg: str) -> StatusShown:
    await ctx.server_ready()  # the window shown is the server's once it has answered (bounded by the probe's timeout)
    session = ctx.session
    used, source = await asyncio.to_thread(
        ctx.token_counter.meter, session.messages, system=session.system_prompt, tools=session.tools
    )
    window = ctx.context_window
    rows: list[tuple[str, str]] = [
        ("model", ctx.model),
        ("provider", f"{ctx.provider_profile or 'default'} (key from ${ctx.config.provider.api_key_env})"),
        ("base URL", ctx.config.provider.base_url or DEFAULT_BASE_URL),
        ("session", f"{session.id} ({_count(len(session.messages), 'message')})"),
        ("mode", f"{ctx.mode.value} (permissions: {ctx.policy.preset})"),
        ("context", f"{used:,} of {window:,} tokens ({used * 100 // window}%)"),
        ("counted", source),
        ("window", ctx.context_window_source),
        ("trust", _trust(ctx)),
        ("sandbox", ctx.policy.sandbox_description()),
        ("MCP", _mcp_servers(ctx)),
    ]
    width = max(len(key) for key, _ in rows)
    text = "\n".join(f"  {key.ljust(width)}  {value}" for key, value in rows)
    return StatusShown(
        "/status",
        "status:\n" + text,
        rows=tuple(rows),
        model=ctx.model,
        provider_profile=ctx.provider_profile,
        base_url=ctx.config.provider.base_url,
        session_id=session.id,
        mode=ctx.mode.value,
        preset=ctx.policy.preset,
        context_tokens=used,
        context_window=window,
        context_source=source,
        context_window_source=ctx.context_window_source,
        sandbox=ctx.policy.sandbox_description(),
        trusted=ctx.project_trusted,
        mcp_servers={name: c.state.value for name, c in ctx.mcp.connections.items()},
    )


def _trust(ctx: CommandContext) -> str:
    if ctx.trusted_for_run:
        return "trusted for this run (--trust)"
    if ctx.project_trusted:
        return "trusted (/trust off to change)"
    return "not trusted (/trust shows what that limits)"


def _mcp_servers(ctx: CommandContext) -> str:
    connections = ctx.mcp.connections
    if not connections:
        return "none configured (/mcp)"
    return ", ".join(
        f"{name} ({connection.state.value}, {_count(len(ctx.mcp.tools_of(name)), 'tool')})"
        for name, connection in connections.items()
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
