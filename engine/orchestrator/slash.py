"""The slash branch (SPEC 7): a table of commands, each a small async handler returning a ``CommandResult``.

Commands about the session itself live in ``session_commands``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from engine.config.project_file import update_project_config
from engine.errors import ProviderError
from engine.mcp.commands import mcp_command, prompt_command_rows, run_prompt_command
from engine.mcp.manager import PromptCommand
from engine.events import CommandResult
from engine.modes import Mode
from engine.record import record
from engine.tools.base import ToolKind
from engine.orchestrator.outcome import TurnOutcome
from engine.orchestrator.steps.compact import maybe_compact
from engine.orchestrator.session_commands import diff_command, new_command, resume_command, undo_command
from engine.commands.custom_run import extra_commands, run_custom_command
from engine.commands.conversation import clear_command, copy_command, fork_command, quit_command
from engine.commands.export import export_command
from engine.commands.init import init_command
from engine.commands.rewind import rewind_command
from engine.commands.cost import cost_command
from engine.commands.doctor import doctor_command
from engine.commands.status import status_command
from engine.commands.theme import theme_command
from engine.orchestrator.trust_command import trust_command

if TYPE_CHECKING:
    from engine.orchestrator.orchestrator import Orchestrator

# A handler returns its result; one that ran a turn itself (``/resume``) returns that turn's outcome instead.
Handler = Callable[["Orchestrator", str], Awaitable["CommandResult | TurnOutcome"]]

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


async def _help(orch: Orchestrator, arg: str) -> CommandResult:
    offered = list(available_commands(orch).values())
    width = max(len(c.usage) for c in offered)
    lines = ["Commands:"] + [f"  {c.usage.ljust(width)}  {c.summary}" for c in offered]
    extra = extra_commands(orch, {c.name for c in offered})
    if extra:
        lines += ["", "Your commands and skills:"] + [f"  {usage.ljust(width)}  {summary} ({where})"
                                                      for _, usage, summary, where in extra]
    lines += ["", "Input:"] + [f"  {key.ljust(width)}  {what}" for key, what in INPUT_RULES]
    commands = [{"name": c.name, "usage": c.usage, "summary": c.summary} for c in offered]
    commands += [{"name": name, "usage": usage, "summary": f"{summary} ({where})"}
                 for name, usage, summary, where in extra]
    rules = [{"key": key, "action": what} for key, what in INPUT_RULES]
    return CommandResult.slash("/help", "\n".join(lines), commands=commands, input_rules=rules)


async def _mode(orch: Orchestrator, arg: str) -> CommandResult:
    if not arg:
        names = ", ".join(m.value for m in Mode)
        text = f"mode: {orch.mode.value} (choose with /mode <{names}>)"
        return CommandResult.slash("/mode", text, mode=orch.mode.value)
    try:
        mode = Mode.parse(arg)
    except ValueError as exc:
        return CommandResult.slash("/mode", str(exc), ok=False)
    orch.set_mode(mode)
    return CommandResult.slash("/mode", f"mode: {orch.mode.value}", mode=orch.mode.value)


def _mode_alias(name: str) -> Handler:
    async def switch(orch: Orchestrator, arg: str) -> CommandResult:
        return await _mode(orch, name)

    return switch


async def _permissions(orch: Orchestrator, arg: str) -> CommandResult:
    if arg:
        try:
            orch.set_preset(arg)
        except ValueError as exc:
            return CommandResult.slash("/permissions", str(exc), ok=False)
    rows = orch.policy.matrix()
    width = max((len(row) for row, _ in rows), default=0)
    sandbox = orch.policy.sandbox_description()
    text = "\n".join(
        [f"preset: {orch.policy.preset}   mode: {orch.mode.value}"]
        + [f"  {r.ljust(width)}  {d}" for r, d in rows]
        + [f"sandbox: {sandbox}"]
    )
    return CommandResult.slash(
        "/permissions",
        text,
        preset=orch.policy.preset,
        mode=orch.mode.value,
        matrix=[list(r) for r in rows],
        sandbox=sandbox,
    )


async def _tools(orch: Orchestrator, arg: str) -> CommandResult:
    rows = _tool_states(orch)
    width = max(len(name) for name, _, _ in rows)
    state_width = max(len(state) for _, state, _ in rows)
    text = "\n".join(
        f"  {name.ljust(width)}  {state.ljust(state_width)}  {summary}" for name, state, summary in rows
    )
    return CommandResult.slash(
        "/tools",
        f"tools in {orch.mode.value} mode:\n{text}",
        tools=[{"name": n, "state": s, "summary": d} for n, s, d in rows],
    )


def _tool_states(orch: Orchestrator) -> list[tuple[str, str, str]]:
    """(tool, its state in the current mode, the first sentence of its description)."""
    rows = []
    for name in orch.registry.names():
        tool = orch.registry.get(name)
        assert tool is not None
        if tool.kind is ToolKind.EXECUTE and orch.mode is not Mode.YOLO:
            state = "by command"  # read-only commands run, others ask: /permissions shows the rules
        else:
            state = orch.policy.decide(name, tool.kind, {}).action.value
        rows.append((name, state, tool.description.split(". ")[0].rstrip(".") + "."))
    return rows


async def _model(orch: Orchestrator, arg: str) -> CommandResult:
    if not arg:
        try:
            offered = await orch.provider().list_models()
        except ProviderError as exc:
            text = f"model: {orch.model}\n(the server's models could not be listed: {exc})"
            return CommandResult.slash("/model", text, model=orch.model, models=[])
        listing = "\n".join(f"  {'*' if name == orch.model else ' '} {name}" for name in offered)
        return CommandResult.slash(
            "/model",
            f"model: {orch.model}\nthe server offers (switch with /model <name>):\n{listing}{_profiles_line(orch)}",
            model=orch.model,
            models=offered,
        )
    orch.set_model(arg)
    try:
        path = update_project_config(orch.workspace_root, ("model",), arg)
    except (OSError, ValueError) as exc:
        text = f"model: {arg} (for this session only: could not save it: {exc})"
        return CommandResult.slash("/model", text, model=arg)
    return CommandResult.slash("/model", f"model: {arg} (saved in {path}){_model_override(orch, arg)}", model=arg)


def _model_override(orch: Orchestrator, model: str) -> str:
    """What will win over the saved model at the next launch (SPEC 17: the environment over the project file)."""
    from_env = orch.env.get("CODER_MODEL")
    if not from_env or from_env == model.partition(":")[2] or from_env == model:
        return ""
    return (
        f"\nnote: CODER_MODEL={from_env} is set in your environment and wins over the saved model at the next "
        f"launch; unset it (or set it to {model}) to keep this one"
    )


def _profiles_line(orch: Orchestrator) -> str:
    """The provider profiles of the configuration, the current one marked (SPEC 18)."""
    names = [f"{name}{' (current)' if name == orch.provider_profile else ''}" for name in orch.config.providers]
    return f"\nprovider profiles (switch with /model <profile>:<model>): {', '.join(names)}" if names else ""


async def _compact(orch: Orchestrator, arg: str) -> CommandResult:
    try:
        deps = orch.turn_deps()
    except ProviderError as exc:
        return CommandResult.slash("/compact", str(exc), ok=False)
    result = await maybe_compact(deps, force=True)
    if result is None or not result.applied:
        reason = result.reason if result is not None else "the model call failed"
        return CommandResult.slash("/compact", f"not compacted: {reason}", ok=False)
    return CommandResult.slash(
        "/compact",
        f"context compacted ({result.tokens_before} -> {result.tokens_after} tokens):\n\n{result.summary}",
        tokens_before=result.tokens_before,
        tokens_after=result.tokens_after,
        summary=result.summary,
    )


async def _todos(orch: Orchestrator, arg: str) -> CommandResult:
    todos = orch.tool_context.todos
    return CommandResult.slash("/todos", todos.describe(), todos=todos.to_records())


async def _skills(orch: Orchestrator, arg: str) -> CommandResult:
    catalog = orch.skills
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
    return CommandResult.slash("/skills", text, skills=rows, problems=problems)


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
        SlashCommand("/compact", "/compact", "summarise the older context now", _compact),
        SlashCommand("/new", "/new", "start a new, empty session", new_command),
        SlashCommand("/resume", "/resume [id]", "list recent sessions, or resume one (--last: the latest)",
                     resume_command),
        SlashCommand("/undo", "/undo", "roll back the file changes of the last turn", undo_command),
        SlashCommand("/diff", "/diff", "the workspace's changes (git diff, or this session's)", diff_command),
        SlashCommand("/init", "/init", "survey the repository and write (or improve) AGENTS.md", init_command),
        SlashCommand("/status", "/status", "model, provider, session, mode and context in use", status_command),
        SlashCommand("/cost", "/cost", "the tokens this run of the session used", cost_command),
        SlashCommand("/doctor", "/doctor", "check the model server: what it is, streaming, tool calls, context",
                     doctor_command),
        SlashCommand("/clear", "/clear", "start a new conversation (the old one stays resumable)", clear_command),
        SlashCommand("/fork", "/fork [id]", "continue in a new session with this one's (or session id's) history",
                     fork_command),
        SlashCommand("/rewind", "/rewind [n]", "go back to an earlier request: files and conversation",
                     rewind_command),
        SlashCommand("/copy", "/copy [n]", "copy the last answer (or the n-th latest) to the clipboard", copy_command),
        SlashCommand("/export", "/export [file]", "write the whole conversation as Markdown", export_command),
        SlashCommand("/theme", "/theme [name]", "show or switch the colour theme (saved in your config)",
                     theme_command),
        SlashCommand("/quit", "/quit", "exit coder-tui", quit_command),
        SlashCommand("/exit", "/exit", "exit coder-tui", quit_command),
        SlashCommand("/trust", "/trust [on|off]", "whether this folder's own config is trusted; change it",
                     trust_command),
        SlashCommand("/mcp", "/mcp [restart <name>]", "MCP servers: state, tools, errors; restart one", mcp_command),
    ]
}


def _mcp_prompts(orch: Orchestrator) -> list[SlashCommand]:
    return [SlashCommand(r.command, r.usage, r.summary, _prompt_handler(r)) for r in prompt_command_rows(orch)]


def _prompt_handler(row: PromptCommand) -> Handler:
    async def run(orch: Orchestrator, arg: str) -> CommandResult | TurnOutcome:
        return await run_prompt_command(orch, row, arg)

    return run


# Commands that come and go during a session (an MCP server's prompts): each source lists what it offers now.
COMMAND_SOURCES: list[Callable[[Orchestrator], list[SlashCommand]]] = [_mcp_prompts]


async def settle_mcp_for(orch: Orchestrator, name: str) -> None:
    """A non-interactive run (headless ``-p '/mcp'``) has started no server yet: a command that shows or uses them
    (``/mcp``, ``/tools``, ``/mcp__server__prompt``) starts them and waits, bounded by their start-up timeouts."""
    if orch.interactive or not (name in ("/mcp", "/tools") or name.startswith("/mcp__")):
        return
    orch.mcp.start()
    await orch.mcp.settle()


def available_commands(orch: Orchestrator) -> dict[str, SlashCommand]:
    """The fixed commands, then those of the sources; a source never shadows a fixed command."""
    commands = dict(COMMANDS)
    for source in COMMAND_SOURCES:
        for command in source(orch):
            commands.setdefault(command.name.lower(), command)
    return commands


async def run_slash(orch: Orchestrator, text: str) -> CommandResult | TurnOutcome:
    name, _, arg = text.strip().partition(" ")
    await settle_mcp_for(orch, name.lower())
    offered = available_commands(orch)
    command = offered.get(name.lower())
    if command is None:
        return await run_custom_command(orch, name, arg.strip(), offered)
    return await command.handler(orch, arg.strip())
