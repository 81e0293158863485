"""The slash branch (SPEC 7): a table of commands, each a small async handler of a ``CommandContext`` returning a
typed result (``engine.command_results``, ``engine.settings_results``).

Commands about the session itself live in ``session_commands``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from engine.config.project_file import update_project_config
from engine.errors import ProviderError
from engine.mcp.commands import mcp_command, prompt_command_rows, run_prompt_command
from engine.mcp.manager import PromptCommand
from engine.command_results import CommandFailed, CommandReply, ContextSummarised, HelpShown, ModelsOffered, TodosShown
from engine.settings_results import ModelSwitched, ModeShown, PermissionsShown, SkillsListed, ToolsListed
from engine.modes import Mode
from engine.record import record
from engine.tools.base import ToolKind
from engine.orchestrator.outcome import TurnOutcome
from engine.orchestrator.steps.compact import maybe_compact
from engine.orchestrator.session_commands import (
    diff_command,
    new_command,
    rename_command,
    resume_command,
    undo_command,
)
from engine.commands.custom_run import extra_commands, run_custom_command
from engine.commands.conversation import clear_command, copy_command, fork_command, quit_command
from engine.commands.export import export_command
from engine.commands.init import init_command
from engine.commands.review import review_command
from engine.commands.rewind import rewind_command
from engine.commands.agents import AGENTS_USAGE, SPAWN_USAGE, agents_command, spawn_command
from engine.commands.cost import cost_command
from engine.commands.merge import USAGE as MERGE_USAGE, merge_command
from engine.commands.doctor import doctor_command
from engine.commands.status import status_command
from engine.commands.theme import theme_command
from engine.commands.setup import setup_command
from engine.commands.vim import vim_command
from engine.orchestrator.trust_command import trust_command

if TYPE_CHECKING:
    from engine.commands.context import CommandContext

# A handler returns its result; one that ran a turn itself (``/resume``) returns that turn's outcome instead.
Handler = Callable[["CommandContext", str], Awaitable["CommandReply | TurnOutcome"]]

INPUT_RULES = (
    ("Enter", "send the input"),
    ("Ctrl+J / Shift+Enter", "new line"),
    ("!command", "run a shell command directly, no model involved"),
    ("/command", "run one of the commands above"),
    ("@path", "attach a file's content to the request"),
    ("Esc", "interrupt the running task"),
    ("Ctrl+D", "exit (on an empty input)"),
)


@record
class SlashCommand:
    name: str
    usage: str
    summary: str
    handler: Handler


async def _help(ctx: CommandContext, arg: str) -> HelpShown:
    offered = list(available_commands(ctx).values())
    width = max(len(c.usage) for c in offered)
    lines = ["Commands:"] + [f"  {c.usage.ljust(width)}  {c.summary}" for c in offered]
    extra = extra_commands(ctx, {c.name for c in offered})
    if extra:
        lines += ["", "Your commands and skills:"] + [f"  {usage.ljust(width)}  {summary} ({where})"
                                                      for _, usage, summary, where in extra]
    lines += ["", "Input:"] + [f"  {key.ljust(width)}  {what}" for key, what in INPUT_RULES]
    commands = [{"name": c.name, "usage": c.usage, "summary": c.summary} for c in offered]
    commands += [{"name": name, "usage": usage, "summary": f"{summary} ({where})"}
                 for name, usage, summary, where in extra]
    rules = tuple({"key": key, "action": what} for key, what in INPUT_RULES)
    return HelpShown("/help", "\n".join(lines), tuple(commands), rules)


async def _mode(ctx: CommandContext, arg: str) -> ModeShown | CommandFailed:
    if not arg:
        names = ", ".join(m.value for m in Mode)
        return ModeShown("/mode", f"mode: {ctx.mode.value} (choose with /mode <{names}>)", ctx.mode.value)
    try:
        mode = Mode.parse(arg)
    except ValueError as exc:
        return CommandFailed("/mode", str(exc))
    ctx.set_mode(mode)
    return ModeShown("/mode", f"mode: {ctx.mode.value}", ctx.mode.value)


def _mode_alias(name: str) -> Handler:
    async def switch(ctx: CommandContext, arg: str) -> ModeShown | CommandFailed:
        return await _mode(ctx, name)

    return switch


async def _permissions(ctx: CommandContext, arg: str) -> PermissionsShown | CommandFailed:
    if arg:
        try:
            ctx.set_preset(arg)
        except ValueError as exc:
            return CommandFailed("/permissions", str(exc))
    rows = ctx.policy.matrix()
    width = max((len(row) for row, _ in rows), default=0)
    sandbox = ctx.policy.sandbox_description()
    text = "\n".join(
        [f"preset: {ctx.policy.preset}   mode: {ctx.mode.value}"]
        + [f"  {r.ljust(width)}  {d}" for r, d in rows]
        + [f"sandbox: {sandbox}"]
    )
    return PermissionsShown("/permissions", text, ctx.policy.preset, ctx.mode.value, tuple(rows), sandbox)


async def _tools(ctx: CommandContext, arg: str) -> ToolsListed:
    rows = _tool_states(ctx)
    width = max(len(name) for name, _, _ in rows)
    state_width = max(len(state) for _, state, _ in rows)
    text = "\n".join(
        f"  {name.ljust(width)}  {state.ljust(state_width)}  {summary}" for name, state, summary in rows
    )
    return ToolsListed(
        "/tools",
        f"tools in {ctx.mode.value} mode:\n{text}",
        tuple({"name": n, "state": s, "summary": d} for n, s, d in rows),
    )


def _tool_states(ctx: CommandContext) -> list[tuple[str, str, str]]:
    """(tool, its state in the current mode, the first sentence of its description)."""
    rows = []
    for name in ctx.registry.names():
        tool = ctx.registry.get(name)
        assert tool is not None
        if tool.kind is ToolKind.EXECUTE and ctx.mode is not Mode.YOLO:
            state = "by command"  # read-only commands run, others ask: /permissions shows the rules
        else:
            state = ctx.policy.decide(name, tool.kind, {}).action.value
        rows.append((name, state, tool.description.split(". ")[0].rstrip(".") + "."))
    return rows


async def _model(ctx: CommandContext, arg: str) -> ModelsOffered | ModelSwitched:
    if not arg:
        try:
            offered = await ctx.provider().list_models()
        except ProviderError as exc:
            text = f"model: {ctx.model}\n(the server's models could not be listed: {exc})"
            return ModelsOffered("/model", text, ctx.model, ())
        listing = "\n".join(f"  {'*' if name == ctx.model else ' '} {name}" for name in offered)
        return ModelsOffered(
            "/model",
            f"model: {ctx.model}\nthe server offers (switch with /model <name>):\n{listing}{_profiles_line(ctx)}",
            ctx.model,
            tuple(offered),
        )
    ctx.set_model(arg)
    try:
        path = update_project_config(ctx.workspace_root, ("model",), arg)
    except (OSError, ValueError) as exc:
        return ModelSwitched("/model", f"model: {arg} (for this session only: could not save it: {exc})", arg)
    return ModelSwitched("/model", f"model: {arg} (saved in {path}){_model_override(ctx, arg)}", arg)


def _model_override(ctx: CommandContext, model: str) -> str:
    """What will win over the saved model at the next launch (SPEC 17: the environment over the project file)."""
    from_env = ctx.env.get("CODER_MODEL")
    if not from_env or from_env == model.partition(":")[2] or from_env == model:
        return ""
    return (
        f"\nnote: CODER_MODEL={from_env} is set in your environment and wins over the saved model at the next "
        f"launch; unset it (or set it to {model}) to keep this one"
    )


def _profiles_line(ctx: CommandContext) -> str:
    """The provider profiles of the configuration, the current one marked (SPEC 18)."""
    names = [f"{name}{' (current)' if name == ctx.provider_profile else ''}" for name in ctx.config.providers]
    return f"\nprovider profiles (switch with /model <profile>:<model>): {', '.join(names)}" if names else ""


async def _compact(ctx: CommandContext, arg: str) -> ContextSummarised | CommandFailed:
    try:
        deps = ctx.turn_deps()
    except ProviderError as exc:
        return CommandFailed("/compact", str(exc))
    result = await maybe_compact(deps, force=True, focus=arg.strip())
    if result is None or not result.applied:
        reason = result.reason if result is not None else "the model call failed"
        return CommandFailed("/compact", f"not compacted: {reason}")
    return ContextSummarised(
        "/compact",
        f"context compacted ({result.tokens_before} -> {result.tokens_after} tokens):\n\n{result.summary}",
        result.tokens_before,
        result.tokens_after,
        result.summary,
    )


async def _todos(ctx: CommandContext, arg: str) -> TodosShown:
    todos = ctx.runtime.tool_context.todos
    return TodosShown("/todos", todos.describe(), tuple(todos.to_records()))


async def _skills(ctx: CommandContext, arg: str) -> SkillsListed:
    catalog = ctx.skills
    rows = [
        {"name": s.name, "description": s.description, "source": s.source.value, "folder": str(s.folder)}
        for s in catalog.skills
    ]
    width = max((len(row["name"]) for row in rows), default=0)
    lines = [f"  {r['name'].ljust(width)}  [{r['source']}]  {r['description']}" for r in rows] or ["  (none)"]
    problems = [str(problem) for problem in catalog.problems]
    text = "skills (load one with the skill tool; add your own in .coder/skills/<name>/SKILL.md):\n" + "\n".join(lines)
    if problems:
        text += "\nproblems:\n" + "\n".join(f"  {p}" for p in problems)
    return SkillsListed("/skills", text, tuple(rows), tuple(problems))


COMMANDS: dict[str, SlashCommand] = {
    c.name: c
    for c in [
        SlashCommand("/help", "/help", "commands, input rules and keys", _help),
        SlashCommand("/model", "/model [name]", "show or switch the model (saved to .coder/config.json)", _model),
        SlashCommand("/mode", "/mode <name>", "switch mode: plan, default, auto-edit (build), yolo", _mode),
        SlashCommand("/plan", "/plan", "read-only planning mode", _mode_alias("plan")),
        SlashCommand("/default", "/default", "ask before edits and commands", _mode_alias("default")),
        SlashCommand("/auto-edit", "/auto-edit", "apply edits without asking", _mode_alias("auto-edit")),
        SlashCommand("/build", "/build", "alias of /auto-edit", _mode_alias("build")),
        SlashCommand("/yolo", "/yolo", "run everything without asking (inside the workspace)", _mode_alias("yolo")),
        SlashCommand("/permissions", "/permissions [preset]", "show the rules in force or switch preset", _permissions),
        SlashCommand("/tools", "/tools", "the tools and their state in this mode", _tools),
        SlashCommand("/skills", "/skills", "the skills the model can load, and where each comes from", _skills),
        SlashCommand("/todos", "/todos", "the session's todo list", _todos),
        SlashCommand("/compact", "/compact [focus]", "summarise the older context now (on what to focus)", _compact),
        SlashCommand("/new", "/new", "start a new, empty session", new_command),
        SlashCommand("/resume", "/resume [id|words]", "pick a session (search with words), or resume one (--last)",
                     resume_command),
        SlashCommand("/rename", "/rename <title>", "give this session a title (the /resume list shows it)",
                     rename_command),
        SlashCommand("/undo", "/undo", "roll back the file changes of the last turn", undo_command),
        SlashCommand("/diff", "/diff", "the workspace's changes (git diff, or this session's)", diff_command),
        SlashCommand("/init", "/init", "survey the repository and write (or improve) AGENTS.md", init_command),
        SlashCommand("/review", "/review [branch|commit|range]",
                     "the model reviews the uncommitted changes (or a branch, commit or range), read-only",
                     review_command),
        SlashCommand("/status", "/status", "model, provider, session, mode and context in use", status_command),
        SlashCommand("/cost", "/cost", "what this session and today cost, and the tokens used", cost_command),
        SlashCommand("/doctor", "/doctor", "check the model server: what it is, streaming, tool calls, context",
                     doctor_command),
        SlashCommand("/clear", "/clear", "start a new conversation (the old one stays resumable)", clear_command),
        SlashCommand("/fork", "/fork [id]", "continue in a new session with this one's (or session id's) history",
                     fork_command),
        SlashCommand("/rewind", "/rewind [n]", "go back to an earlier request: files and conversation",
                     rewind_command),
        SlashCommand("/copy", "/copy [n]", "copy the last answer (or the n-th latest) to the clipboard", copy_command),
        SlashCommand("/export", "/export [file]", "write the whole conversation as Markdown", export_command),
        SlashCommand("/setup", "/setup [url [model]]", "set the model server and model (saved in your config)",
                     setup_command),
        SlashCommand("/theme", "/theme [name]", "show or switch the colour theme (saved in your config)",
                     theme_command),
        SlashCommand("/vim", "/vim [on|off]", "vim keys in the prompt: normal and insert modes (saved in your config)",
                     vim_command),
        SlashCommand("/quit", "/quit", "exit coder-tui", quit_command),
        SlashCommand("/exit", "/exit", "exit coder-tui", quit_command),
        SlashCommand("/trust", "/trust [on|off]", "whether this folder's own config is trusted; change it",
                     trust_command),
        SlashCommand("/mcp", "/mcp [restart <name>]", "MCP servers: state, tools, errors; restart one", mcp_command),
        SlashCommand("/spawn", SPAWN_USAGE, "start an agent on a git worktree of its own with this task",
                     spawn_command),
        SlashCommand("/merge", MERGE_USAGE, "bring an agent's work into this tree, hunk by hunk", merge_command),
        SlashCommand("/agents", AGENTS_USAGE, "the agents: list, look at one, cancel, keep or discard",
                     agents_command),
    ]
}


def _mcp_prompts(ctx: CommandContext) -> list[SlashCommand]:
    return [SlashCommand(r.command, r.usage, r.summary, _prompt_handler(r)) for r in prompt_command_rows(ctx)]


def _prompt_handler(row: PromptCommand) -> Handler:
    async def run(ctx: CommandContext, arg: str) -> CommandFailed | TurnOutcome:
        return await run_prompt_command(ctx, row, arg)

    return run


# Commands that come and go during a session (an MCP server's prompts): each source lists what it offers now.
COMMAND_SOURCES: list[Callable[[CommandContext], list[SlashCommand]]] = [_mcp_prompts]


async def settle_mcp_for(ctx: CommandContext, name: str) -> None:
    """A non-interactive run (headless ``-p '/mcp'``) has started no server yet: a command that shows or uses them
    (``/mcp``, ``/tools``, ``/mcp__server__prompt``) starts them and waits, bounded by their start-up timeouts."""
    if ctx.interactive or not (name in ("/mcp", "/tools") or name.startswith("/mcp__")):
        return
    ctx.mcp.start()
    await ctx.mcp.settle()


def available_commands(ctx: CommandContext) -> dict[str, SlashCommand]:
    """The fixed commands, then those of the sources; a source never shadows a fixed command."""
    commands = dict(COMMANDS)
    for source in COMMAND_SOURCES:
        for command in source(ctx):
            commands.setdefault(command.name.lower(), command)
    return commands


async def run_slash(ctx: CommandContext, text: str) -> CommandReply | TurnOutcome:
    name, _, arg = text.strip().partition(" ")
    await settle_mcp_for(ctx, name.lower())
    offered = available_commands(ctx)
    command = offered.get(name.lower())
    if command is None:
        return await run_custom_command(ctx, name, arg.strip(), offered)
    return await command.handler(ctx, arg.strip())
