"""Where skills live and how they are found (SPEC 16): one folder per skill, under the project's ``.coder/skills/``,
the user's ``coder/skills/`` config folder and the built-in set, a skill of a higher-priority source hiding one of
the same name from a lower one (user > builtin > project). A project's skills come with the repository (SPEC 19):
they are used only in a trusted folder, and one hidden by the user's or a built-in skill is reported, never
silently dropped."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from engine.record import record
from engine.skills.skill import SKILL_FILE, Skill, SkillProblem, SkillSource
from engine.skills.skill_file import SkillFormatError, read_skill

BUILTIN_SKILLS_DIR = Path(__file__).resolve().parent / "builtin"
UNTRUSTED_PROJECT_SKILL = "not used: this folder is not trusted, so its own skills are not either (/trust on)"


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
        SkillRoot(Path(config_home).resolve() / "coder" / "skills", SkillSource.USER),
        SkillRoot(BUILTIN_SKILLS_DIR, SkillSource.BUILTIN),
        SkillRoot(Path(workspace).resolve() / ".coder" / "skills", SkillSource.PROJECT),
    ]


def discover(roots: Iterable[SkillRoot], *, project_trusted: bool = True) -> SkillSet:
    """Reads every ``<root>/<folder>/SKILL.md``. A missing root is simply empty; a broken skill becomes a problem
    and hides nothing, so a lower-priority skill of the same name still loads. Without ``project_trusted`` the
    project's skills are not read: each is a problem saying why."""
    found: dict[str, Skill] = {}
    problems: list[SkillProblem] = []
    for root in roots:
        for folder in _skill_folders(root, problems):
            if root.source is SkillSource.PROJECT and not project_trusted:
                problems.append(SkillProblem(folder / SKILL_FILE, UNTRUSTED_PROJECT_SKILL, root.source))
                continue
            try:
                skill = read_skill(folder, root.source)
            except SkillFormatError as exc:
                problems.append(SkillProblem(folder / SKILL_FILE, str(exc), root.source))
                continue
            winner = found.get(skill.name)
            if winner is None:
                found[skill.name] = skill
            elif skill.source is SkillSource.PROJECT:
                reason = f"not used: the {winner.source.value} skill {skill.name!r} ({winner.folder}) wins"
                problems.append(SkillProblem(folder / SKILL_FILE, reason, skill.source))
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
