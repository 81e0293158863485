"""``/init`` (SPEC 23): the model surveys the repository with the read-only tools and writes ``AGENTS.md``, or
proposes improvements to the one there. It is an ordinary turn with a fixed request, so the write goes through the
usual mode check and approval."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.orchestrator.outcome import TurnOutcome

if TYPE_CHECKING:
    from engine.commands.context import CommandContext

INSTRUCTIONS_FILE = "AGENTS.md"

_SURVEY = """\
/init: survey this repository and write {file} at its root, the instructions file coding agents read before they
work here.

First look around with the read-only tools only (list, glob, grep, read): the layout, the build and package files,
the README, the tests and how they run, CI configuration, linters and formatters, and any existing agent
instructions (CLAUDE.md, .cursorrules, .github/copilot-instructions.md).

{task}

Keep it short and specific to this repository: the commands to build, test (including a single test) and lint; the
architecture a newcomer needs that is not obvious from a file listing; the conventions the code follows. No
generic advice, no list of every file."""

_CREATE = "Then write {file} with the write tool."
_IMPROVE = (
    "{file} already exists: read it, then propose improvements by editing it with the edit tool (keep what is still "
    "right, fix what is out of date, add what is missing). If it needs no change, say so and change nothing."
)


def init_request(workspace_has_file: bool) -> str:
    task = (_IMPROVE if workspace_has_file else _CREATE).format(file=INSTRUCTIONS_FILE)
    return _SURVEY.format(file=INSTRUCTIONS_FILE, task=task)


async def init_command(ctx: CommandContext, arg: str) -> TurnOutcome:
    exists = (ctx.workspace_root / INSTRUCTIONS_FILE).is_file()
    return await ctx.run_prompt(init_request(exists))
