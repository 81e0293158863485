"""Where skills live and how they are found (SPEC 16): one folder per skill, under the project's ``.coder/skills/``,
the user's ``coder/skills/`` config folder and the built-in set, a skill of a higher-priority source hiding one of
the same name from a lower one (project > user > builtin)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from engine.record import record
from engine.skills.skill import SKILL_FILE, Skill, SkillProblem, SkillSource
from engine.skills.skill_file import SkillFormatError, read_skill

BUILTIN_SKILLS_DIR = Path(__file__).resolve().parent / "builtin"


@record
class SkillRoot:
    """A folder whose sub-folders are skills."""

    path: Path
    source: SkillSource


@record
class SkillSet:
    """What discovery found: the usable skills by name (sorted) and the skills that could not be loaded."""

    skills: tuple[Skill, ...] = ()
    problems: tuple[SkillProblem, ...] = ()


def skill_roots(workspace: Path, env: Mapping[str, str] | None = None) -> list[SkillRoot]:
    """The three roots in priority order. ``env`` is read for ``XDG_CONFIG_HOME`` and ``HOME`` (the process's
    environment when None), the same way the user config file is found."""
    env = os.environ if env is None else env
    config_home = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return [
        SkillRoot(Path(workspace).resolve() / ".coder" / "skills", SkillSource.PROJECT),
        SkillRoot(Path(config_home).resolve() / "coder" / "skills", SkillSource.USER),
        SkillRoot(BUILTIN_SKILLS_DIR, SkillSource.BUILTIN),
    ]


def discover(roots: Iterable[SkillRoot]) -> SkillSet:
    """Reads every ``<root>/<folder>/SKILL.md``. A missing root is simply empty; a broken skill becomes a problem
    and hides nothing, so a lower-priority skill of the same name still loads."""
    found: dict[str, Skill] = {}
    problems: list[SkillProblem] = []
    for root in roots:
        for folder in _skill_folders(root, problems):
            try:
                skill = read_skill(folder, root.source)
            except SkillFormatError as exc:
                problems.append(SkillProblem(folder / SKILL_FILE, str(exc), root.source))
                continue
            winner = found.get(skill.name)
            if winner is None:
                found[skill.name] = skill
            else:
                found[skill.name] = replace(winner, overrides=(*winner.overrides, skill.source))
    return SkillSet(tuple(found[name] for name in sorted(found)), tuple(problems))


def _skill_folders(root: SkillRoot, problems: list[SkillProblem]) -> list[Path]:
    """The sub-folders of ``root`` holding a SKILL.md, by name; hidden folders are skipped (editors, VCS)."""
    try:
        entries = sorted(root.path.iterdir())
    except FileNotFoundError:
        return []
    except NotADirectoryError:
        problems.append(SkillProblem(root.path, "is a file; skills go in a folder of this name", root.source))
        return []
    except OSError as exc:
        problems.append(SkillProblem(root.path, f"cannot list the folder: {exc.strerror or exc}", root.source))
        return []
    return [entry for entry in entries if not entry.name.startswith(".") and (entry / SKILL_FILE).is_file()]
