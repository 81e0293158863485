"""``/spawn`` and ``/agents`` (SPEC 26): start an agent on a worktree of its own, list the agents, look at one,
cancel, keep or discard one. The agents themselves are the orchestrator's (``ctx.agents``)."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

from engine.agents.worktree import WorktreeError
from engine.command_results import AgentShown, AgentsListed, CommandFailed
from engine.events import ModeChanged, TodosChanged
from engine.interaction import QuestionRequest
from engine.modes import Mode
from engine.orchestrator.resume import history_restored

if TYPE_CHECKING:
    from engine.commands.context import CommandContext
    from engine.orchestrator.runtime import SessionRuntime

SPAWN_USAGE = "/spawn [--mode <mode>] [--name <name>] <task>"
AGENTS_USAGE = "/agents [show <name> | main | cancel <name|all> | keep <name> | discard <name>]"
_DISCARD, _KEEP = "Discard", "Keep"


async def spawn_command(ctx: CommandContext, arg: str) -> AgentsListed | CommandFailed:
    try:
        mode, name, task = _spawn_args(arg)
        agent = await ctx.agents.spawn(task, mode, name)
    except (ValueError, WorktreeError) as exc:
        return CommandFailed("/spawn", f"{exc}\nusage: {SPAWN_USAGE}")
    text = (
        f"agent {agent.name} started on branch {agent.branch} in {agent.root} ({agent.mode} mode)"
        f"{'; it waits its turn (agents.max_running)' if agent.state.value == 'queued' else ''}\n"
        f"/agents shows them all; /agents show {agent.name} its transcript"
    )
    return AgentsListed("/spawn", text, ctx.agents.rows(), agent.name)


def _spawn_args(arg: str) -> tuple[Mode | None, str | None, str]:
    mode: Mode | None = None
    name: str | None = None
    rest = arg.strip()
    while rest.startswith("--"):
        flag, _, rest = rest.partition(" ")
        value, _, rest = rest.strip().partition(" ")
        rest = rest.strip()
        if flag == "--mode" and value:
            mode = Mode.parse(value)
        elif flag == "--name" and value:
            name = value
        else:
            raise ValueError(f"unknown option {flag!r} (or its value is missing)")
    if not rest:
        raise ValueError("say what the agent should do")
    if rest.startswith(("/", "!")):
        raise ValueError("an agent's task is a request to the model, not a / or ! command")
    return mode, name, rest


async def agents_command(ctx: CommandContext, arg: str) -> AgentsListed | AgentShown | CommandFailed:
    try:
        words = shlex.split(arg)
    except ValueError as exc:
        return CommandFailed("/agents", f"{exc}\nusage: {AGENTS_USAGE}")
    action, names = (words[0], words[1:]) if words else ("", [])
    pool = ctx.agents
    try:
        match action, names:
            case "", []:
                return AgentsListed("/agents", agents_table(pool.rows()), pool.rows())
            case "main", []:
                runtime = pool.show(None)
                _announce_view(ctx, runtime)
                return AgentShown("/agents", "back to the main session", runtime.id)
            case "show", [name]:
                runtime = pool.show(name)
                _announce_view(ctx, runtime)
                agent = pool.get(name)
                text = f"agent {name} ({agent.state.value}) on {agent.branch}; /agents main goes back"
                return AgentShown("/agents", text, runtime.id, name, agent.root)
            case "cancel", ["all"]:
                count = pool.cancel_all()
                return AgentsListed("/agents", f"cancelled {count} agent{'s' if count != 1 else ''}", pool.rows())
            case "cancel", [name]:
                done = pool.cancel(name)
                text = f"agent {name} cancelled" if done else f"agent {name} is not running"
                return AgentsListed("/agents", text, pool.rows(), name, ok=done)
            case "keep", [name]:
                agent = pool.keep(name)
                text = f"agent {name} is off the list; its work stays on branch {agent.branch} in {agent.root}"
                return AgentsListed("/agents", text, pool.rows(), name)
            case "discard", [name]:
                return await _discard(ctx, name)
    except WorktreeError as exc:
        return CommandFailed("/agents", str(exc))
    return CommandFailed("/agents", f"usage: {AGENTS_USAGE}")


def _announce_view(ctx: CommandContext, runtime: SessionRuntime) -> None:
    """What a front end needs to show the session now in view: its history so far, its mode and its todos."""
    ctx.emit(history_restored(ctx.store, runtime.id))
    ctx.emit(ModeChanged(runtime.policy.mode.value))
    ctx.emit(TodosChanged(tuple(runtime.tool_context.todos.items)))


async def _discard(ctx: CommandContext, name: str) -> AgentsListed | CommandFailed:
    agent = ctx.agents.get(name)
    question = (
        f"Discard agent {name}? Its worktree {agent.root} (with anything uncommitted in it) is removed and its branch "
        f"{agent.branch} deleted."
    )
    answer = await ctx.interaction.ask_question(QuestionRequest(question, (_DISCARD, _KEEP), allow_input=False))
    if answer.cancelled or answer.answer != _DISCARD:
        return AgentsListed("/agents", f"agent {name} kept", ctx.agents.rows(), name)
    await ctx.agents.discard(name)
    return AgentsListed(
        "/agents", f"agent {name} discarded: {agent.root} removed, {agent.branch} deleted", ctx.agents.rows(), name
    )


def agents_table(rows: tuple[dict[str, Any], ...]) -> str:
    """The agents as lines of text: name, state, todos, elapsed time, tokens, branch."""
    if not rows:
        return "no agents (start one with /spawn <task>)"
    lines = []
    for row in rows:
        todos = f"{row['todos_done']}/{row['todos_total']}" if row["todos_total"] else "-"
        note = f"  ({row['note']})" if row["note"] else ""
        lines.append(
            f"  {row['name']}  {row['state']}  todos {todos}  {_elapsed(row['elapsed_s'])}  "
            f"{row['tokens']:,} tokens  {row['branch']}{note}"
        )
    return "agents:\n" + "\n".join(lines)


def _elapsed(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"
