"""The slash commands of MCP: ``/mcp`` (each server's state, transport, tools and last error), ``/mcp restart NAME``,
and every server prompt as ``/mcp__<server>__<prompt> [arguments]``, which runs a turn on the prompt's text."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

from engine.errors import ToolError
from engine.command_results import CommandFailed
from engine.mcp.manager import PromptCommand
from engine.mcp.results import block_text
from engine.settings_results import McpServerRestarted, McpServersListed

if TYPE_CHECKING:
    from engine.commands.context import CommandContext
    from engine.orchestrator.outcome import TurnOutcome

USAGE = "/mcp [restart <name>]"


async def mcp_command(ctx: CommandContext, arg: str) -> McpServersListed | McpServerRestarted | CommandFailed:
    ctx.mcp.start()  # a headless `/mcp` comes before anything started them
    words = arg.split()
    if words and words[0] == "restart":
        return await _restart(ctx, words[1:])
    if words:
        return CommandFailed("/mcp", f"unknown argument {arg!r}: usage {USAGE}")
    return _listing(ctx)


def _listing(ctx: CommandContext) -> McpServersListed:
    manager = ctx.mcp
    rows = []
    for name, connection in manager.connections.items():
        rows.append(
            {
                "name": name,
                "state": connection.state.value,
                "transport": connection.spec.transport,
                "tools": len(manager.tools_of(name)),
                "prompts": len(connection.prompts),
                "error": connection.error,
                "not_offered": list(connection.skipped_tools),
                "source": connection.spec.source,
                "target": connection.spec.target,
                "log": str(connection.log_path),
            }
        )
    problems = list(manager.problems)
    if not rows:
        text = (
            "no MCP servers configured: add them under mcp_servers in .coder/config.json or "
            "~/.config/coder/config.json (or in a trusted project's .mcp.json)"
        )
    else:
        width = max(len(row["name"]) for row in rows)
        lines = ["MCP servers (restart one with /mcp restart <name>):"]
        for row in rows:
            lines.append(
                f"  {row['name'].ljust(width)}  {row['state']:<8}  {row['transport']:<5}  "
                f"{row['tools']:>3} tools  {row['prompts']:>2} prompts"
            )
            lines.append(f"    {row['target']}")
            if row["not_offered"]:
                lines.append(f"    not offered (they require task augmentation): {', '.join(row['not_offered'])}")
            if row["error"]:
                lines.append(f"    last error: {row['error']}")
                lines.append(f"    log: {row['log']}")
        text = "\n".join(lines)
    if problems:
        text += "\nproblems:\n" + "\n".join(f"  {p}" for p in problems)
    return McpServersListed("/mcp", text, servers=tuple(rows), problems=tuple(problems))


async def _restart(ctx: CommandContext, names: list[str]) -> McpServerRestarted | CommandFailed:
    if len(names) != 1:
        return CommandFailed("/mcp", f"usage: {USAGE}")
    name = names[0]
    if name not in ctx.mcp.connections:
        known = ", ".join(ctx.mcp.connections) or "none"
        return CommandFailed("/mcp", f"no MCP server named {name!r} (configured: {known})")
    connection = await ctx.mcp.restart(name)
    await ctx.mcp.settle()
    state = connection.state.value
    detail = f": {connection.error}" if connection.error else f" ({len(ctx.mcp.tools_of(name))} tools)"
    return McpServerRestarted(
        "/mcp", f"MCP server {name} restarted: {state}{detail}", server=name, state=state, ok=connection.error is None
    )


def prompt_command_rows(ctx: CommandContext) -> list[PromptCommand]:
    return ctx.mcp.prompt_commands()


async def run_prompt_command(ctx: CommandContext, command: PromptCommand, arg: str) -> CommandFailed | TurnOutcome:
    """Fetches the prompt with its arguments and runs a turn on its text, as if the user had typed it."""
    try:
        arguments = prompt_arguments(command, arg)
    except ValueError as exc:
        return CommandFailed(command.command, f"{exc}\nusage: {command.usage}")
    try:
        result = await command.connection.get_prompt(command.prompt.name, arguments)
    except ToolError as exc:
        return CommandFailed(command.command, str(exc))
    text = prompt_text(result.messages)
    if not text.strip():
        return CommandFailed(command.command, f"the prompt {command.prompt.name} is empty")
    return await ctx.run_prompt(text)


def prompt_arguments(command: PromptCommand, arg: str) -> dict[str, str]:
    """``name=value`` words by name, the other words in the order of the prompt's arguments; the last argument
    takes the rest of the words. ``ValueError`` for a missing required argument or an unknown name."""
    declared = [a.name for a in command.arguments]
    try:
        words = shlex.split(arg)
    except ValueError as exc:
        raise ValueError(f"cannot read the arguments: {exc}") from exc
    values: dict[str, str] = {}
    positional: list[str] = []
    for word in words:
        key, eq, value = word.partition("=")
        if eq and key in declared:
            values[key] = value
        else:
            positional.append(word)
    free = [name for name in declared if name not in values]
    if len(positional) > len(free):
        if not free:
            raise ValueError(f"{command.command} takes no more arguments (got {' '.join(positional)!r})")
        positional = [*positional[: len(free) - 1], " ".join(positional[len(free) - 1 :])]
    values.update(zip(free, positional, strict=False))
    missing = [a.name for a in command.arguments if a.required and a.name not in values]
    if missing:
        raise ValueError(f"missing argument{'s' if len(missing) > 1 else ''}: {', '.join(missing)}")
    return values


def prompt_text(messages: list[Any]) -> str:
    """The prompt's messages as one request: a single user message as it is, several with their roles."""
    parts = [(message.role, block_text(message.content)) for message in messages]
    if len(parts) == 1 and parts[0][0] == "user":
        return parts[0][1]
    return "\n\n".join(f"[{role}]\n{text}" for role, text in parts)
