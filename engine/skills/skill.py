"""What a skill is (SPEC 16): a folder holding ``SKILL.md``, its front matter's name and description, its body of
instructions, and where it came from; and what went wrong with one that could not be loaded."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

from engine.record import record

SKILL_FILE = "SKILL.md"


class SkillSource(str, Enum):
    """Where a skill was found. Earlier members win when two sources hold a skill of the same name: a repository's
    skill never replaces the user's own or a built-in one (SPEC 19)."""

    USER = "user"  # $XDG_CONFIG_HOME/coder/skills/ (~/.config/coder/skills/)
    BUILTIN = "builtin"  # shipped with coder-tui
    PROJECT = "project"  # <workspace>/.coder/skills/, used only in a trusted folder


@record
class Skill:
    name: str
    description: str
    # The instructions after the front matter, loaded by the ``skill`` tool.
    body: str
    source: SkillSource
    # The skill's folder; other files in it (scripts, references, templates) belong to the skill.
    folder: Path
    # Lower-priority sources that also hold a skill of this name, hidden by this one.
    overrides: tuple[SkillSource, ...] = ()

    @property
    def file(self) -> Path:
        return self.folder / SKILL_FILE


@record
class SkillProblem:
    """A skill that could not be loaded: the file (or folder) at fault and why, in words a user can act on."""

    path: Path
    reason: str
    source: SkillSource

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"
