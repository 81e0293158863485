"""Running ``/<name>`` when it is not a built-in: a custom command's expanded body, or a skill's instructions, go
to the model as the user's request (a turn). Also lists them for ``/help`` and completion."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from engine.commands.custom import CustomCommands, discover_commands, skill_request
from engine.command_results import CommandFailed
from engine.events import Notice
from engine.orchestrator.outcome import TurnOutcome
from engine.skills.skill import SkillSource

if TYPE_CHECKING:
    from engine.commands.context import CommandContext


def custom_commands(ctx: CommandContext, reserved: Collection[str]) -> CustomCommands:
    kept = {
        f"/{skill.name}": f"the {skill.source.value} skill {skill.name!r}"
        for skill in ctx.skills.skills
        if skill.source is not SkillSource.PROJECT
    }
    return discover_commands(
        ctx.workspace_root, ctx.env, project_trusted=ctx.project_trusted, reserved=set(reserved),
        kept_from_project=kept,
    )


def extra_commands(ctx: CommandContext, reserved: Collection[str]) -> list[tuple[str, str, str, str]]:
    """(name, usage, summary, where) of every custom command, then every skill not shadowed by one."""
    found = custom_commands(ctx, reserved)
    rows = [(c.name, c.usage, c.description, c.source) for c in found.commands]
    taken = set(reserved) | {c.name for c in found.commands}
    for skill in ctx.skills.skills:
        name = f"/{skill.name}"
        if name not in taken:
            rows.append((name, f"{name} [request]", skill.description, f"skill, {skill.source.value}"))
    return rows


async def run_custom_command(
    ctx: CommandContext, name: str, arguments: str, reserved: Collection[str]
) -> CommandFailed | TurnOutcome:
    found = custom_commands(ctx, reserved)
    # Said first, whatever runs: a command or skill of this name that is not used, and why (SPEC 19: never silent).
    for problem in found.problems:
        if problem.path.stem == name[1:]:
            ctx.emit(Notice(f"custom command {problem}", level="warning"))
    for skill_problem in ctx.skills.problems_of(name[1:]):
        if skill_problem.source is SkillSource.PROJECT:
            ctx.emit(Notice(f"project skill {skill_problem}", level="warning"))
    command = found.get(name)
    if command is not None:
        return await ctx.run_prompt(command.expand(arguments))
    skill = ctx.skills.get(name[1:]) if len(name) > 1 else None
    if skill is not None:
        return await ctx.run_prompt(skill_request(skill, arguments))
    hint = ""
    if found.skipped_note and (ctx.workspace_root / ".coder" / "commands" / f"{name[1:]}.md").is_file():
        hint = f" ({found.skipped_note})"
    return CommandFailed(name, f"unknown command {name}: type /help for the list{hint}")
