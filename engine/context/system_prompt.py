"""The system prompt (SPEC 10): role, the current mode's rules, the environment the model works in, the project's
instructions (``AGENTS.md``) and the skills it may load.

A session keeps the system prompt its first turn was given, so every request starts with the same bytes and the
server's prompt cache holds (SPEC 18). What changes later (the mode, the git status, the date, the instructions or
the skills) is told to the model in a reminder on the next user message: ``prompt_changes``.
"""

from __future__ import annotations

import platform
import re
import subprocess
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from engine.modes import Mode
from engine.record import record
from engine.sandbox.child_env import git_environment

ROLE = """You are coder-tui, a coding agent working in the user's terminal on the project in the workspace below.
You read, search, edit files and run commands with the tools you are given, then answer concisely.
- Read a file before you change it; prefer `edit` for small changes and `write` for new files.
- Paths are relative to the workspace root; you cannot touch anything outside it.
- Tool results are JSON: {"ok": true, ...} or {"ok": false, "error": "..."}. When a call fails, read the error and
  decide what to do next; do not repeat the same failing call.
- When the work is done, say briefly what you changed and how you checked it."""

MODE_RULES: dict[Mode, str] = {
    Mode.PLAN: "Mode: plan. You may only read and analyse: write, edit, patch and sub-agents are disabled, and "
    "commands other than read-only ones need the user's approval. Produce a concrete plan; change nothing.",
    Mode.DEFAULT: "Mode: default. Reading is free; every file change and every command that is not read-only "
    "asks the user for approval first.",
    Mode.AUTO_EDIT: "Mode: auto-edit. File changes are applied without asking; commands that are not read-only "
    "still ask the user for approval.",
    Mode.YOLO: "Mode: yolo. Everything runs without asking, inside the workspace. Be careful with destructive "
    "commands.",
}


@record
class Environment:
    workspace: Path
    os_name: str
    today: str
    git_branch: str | None
    git_status: str | None

    def render(self) -> str:
        lines = [f"Workspace: {self.workspace}", f"OS: {self.os_name}", f"Date: {self.today}"]
        if self.git_branch is not None:
            lines.append(f"Git branch: {self.git_branch}")
            lines.append(f"Git status: {self.git_status or 'clean'}")
        else:
            lines.append("Git: not a repository")
        return "\n".join(lines)


def probe_environment(workspace: Path) -> Environment:
    branch = _git(workspace, "rev-parse", "--abbrev-ref", "HEAD")
    status = None
    if branch is not None:
        porcelain = _git(workspace, "status", "--porcelain") or ""
        changed = [line for line in porcelain.splitlines() if line.strip()]
        status = f"{len(changed)} changed file(s)" if changed else "clean"
    return Environment(
        workspace=workspace,
        os_name=f"{platform.system()} {platform.release()}",
        today=date.today().isoformat(),
        git_branch=branch,
        git_status=status,
    )


INSTRUCTIONS_PREAMBLE = (
    "The project's instruction files follow, most general first. Follow them; where two disagree, the later "
    "(more specific) one wins, and the user's own requests win over both."
)
SKILLS_PREAMBLE = (
    "Skills are instructions for particular kinds of task. When a request fits one, load it with the `skill` tool "
    "before you start, then follow it."
)


def build_system_prompt(
    mode: Mode,
    environment: Environment,
    *,
    instructions: str = "",
    skills: Sequence[tuple[str, str]] = (),
) -> str:
    """``instructions`` is ``Instructions.text`` (engine.context.instructions); ``skills`` are (name, description)
    pairs. Each section is left out when empty."""
    sections = [ROLE, MODE_RULES[mode], "# Environment\n" + environment.render()]
    if instructions.strip():
        sections.append(f"# Project instructions\n{INSTRUCTIONS_PREAMBLE}\n\n{instructions.strip()}")
    if skills:
        listing = "\n".join(f"- {name}: {' '.join(description.split())}" for name, description in skills)
        sections.append(f"# Skills\n{SKILLS_PREAMBLE}\n{listing}")
    return "\n\n".join(sections)


# Where the sections after the role start: the mode's rules, then the headed sections.
_SECTION_START = re.compile(r"\n\n(?=Mode: |# Environment\n|# Project instructions\n|# Skills\n)")
CHANGES_PREAMBLE = "This changed since the system prompt above was written; it holds from now on:"


def prompt_sections(prompt: str) -> dict[str, str]:
    """The prompt's sections by name: ``role``, ``Mode``, then each ``# Heading``'s text."""
    sections: dict[str, str] = {}
    last = "role"
    for position, section in enumerate(_SECTION_START.split(prompt)):
        name = "role" if position == 0 else "Mode" if section.startswith("Mode:") else section.split("\n", 1)[0]
        if name in sections:  # a heading inside the project's instructions: part of the section it is in
            sections[last] += "\n\n" + section
            continue
        sections[name], last = section, name
    return sections


def prompt_changes(told: str, current: str) -> str:
    """What ``current`` says that the prompt the model was last told (``told``) did not, section by section; empty
    when nothing changed. A section that is gone is named as gone."""
    before, after = prompt_sections(told), prompt_sections(current)
    changed = [text for name, text in after.items() if before.get(name) != text]
    changed += [f"{name}\n(none any more)" for name in before if name not in after]
    return "\n\n".join([CHANGES_PREAMBLE, *changed]) if changed else ""


def _git(workspace: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=workspace, capture_output=True, text=True, timeout=3, check=False,
            env=git_environment(workspace),  # a hostile .git/config must not run its fsmonitor here (SPEC 13)
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.strip()
