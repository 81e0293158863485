"""Running ``/<name>`` when it is not a built-in: a custom command's expanded body, or a skill's instructions, go
to the model as the user's request (a turn). Also lists them for ``/help`` and completion."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from engine.commands.custom import CustomCommands, discover_commands, skill_request
from engine.events import CommandResult, Notice
from engine.orchestrator.outcome import TurnOutcome
from engine.skills.skill import SkillSource

if TYPE_CHECKING:
    from engine.orchestrator.orchestrator import Orchestrator


def custom_commands(orch: Orchestrator, reserved: Collection[str]) -> CustomCommands:
    kept = {
        f"/{skill.name}": f"the {skill.source.value} skill {skill.name!r}"
        for skill in orch.skills.skills
        if skill.source is not SkillSource.PROJECT
    }
    return discover_commands(
        orch.workspace_root, orch.env, project_trusted=orch.project_trusted, reserved=set(reserved),
        kept_from_project=kept,
    )


def extra_commands(orch: Orchestrator, reserved: Collection[str]) -> list[tuple[str, str, str, str]]:
    """(name, usage, summary, where) of every custom command, then every skill not shadowed by one."""
    found = custom_commands(orch, reserved)
    rows = [(c.name, c.usage, c.description, c.source) for c in found.commands]
    taken = set(reserved) | {c.name for c in found.commands}
    for skill in orch.skills.skills:
        name = f"/{skill.name}"
        if name not in taken:
            rows.append((name, f"{name} [request]", skill.description, f"skill, {skill.source.value}"))
    return rows


async def run_custom_command(
    orch: Orchestrator, name: str, arguments: str, reserved: Collection[str]
) -> CommandResult | TurnOutcome:
    found = custom_commands(orch, reserved)
    # Said first, whatever runs: a command or skill of this name that is not used, and why (SPEC 19: never silent).
    for problem in found.problems:
        if problem.path.stem == name[1:]:
            orch.emit(Notice(f"custom command {problem}", level="warning"))
    for skill_problem in orch.skills.problems_of(name[1:]):
        if skill_problem.source is SkillSource.PROJECT:
            orch.emit(Notice(f"project skill {skill_problem}", level="warning"))
    command = found.get(name)
    if command is not None:
        return await orch.run_prompt(command.expand(arguments))
    skill = orch.skills.get(name[1:]) if len(name) > 1 else None
    if skill is not None:
        return await orch.run_prompt(skill_request(skill, arguments))
    hint = ""
    if found.skipped_note and (orch.workspace_root / ".coder" / "commands" / f"{name[1:]}.md").is_file():
        hint = f" ({found.skipped_note})"
    return CommandResult.slash(name, f"unknown command {name}: type /help for the list{hint}", ok=False)
