"""Skills (SPEC 16): folders holding a ``SKILL.md`` of instructions the model loads when a request fits.

``skill`` says what a skill is, ``skill_file`` reads one, ``discovery`` finds them in the project, user and built-in
folders, ``watcher`` notices changes, ``catalog`` holds the current set.
Importing this package loads neither PyYAML nor watchfiles: each is imported where first needed.
"""

from engine.skills.catalog import SkillCatalog
from engine.skills.discovery import SkillRoot, skill_roots
from engine.skills.skill import Skill, SkillProblem, SkillSource

__all__ = ["Skill", "SkillCatalog", "SkillProblem", "SkillRoot", "SkillSource", "skill_roots"]
