"""The skills section of the system prompt (SPEC 10, 16): names and descriptions only, so the model knows what it
can load with the ``skill`` tool without paying for every body on every request."""

from __future__ import annotations

from engine.skills.catalog import SkillCatalog

_INTRO = (
    "Skills are instructions for particular kinds of work. When a request fits one of the skills below, load it "
    "with the `skill` tool (skill(name=...)) before you start, then follow it. Do not load a skill that does not fit."
)


def render_skills_for_prompt(catalog: SkillCatalog) -> str:
    """The "# Skills" section, or "" when there are none (the prompt then says nothing about skills)."""
    if not catalog.skills:
        return ""
    lines = [f"- {skill.name}: {skill.description}" for skill in catalog.skills]
    return "\n".join(["# Skills", _INTRO, *lines])
