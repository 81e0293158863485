"""SPEC 10: the system prompt holds role, mode rules, environment, project instructions and the skills list."""

from __future__ import annotations

from pathlib import Path

from engine.context.system_prompt import MODE_RULES, Environment, build_system_prompt
from engine.modes import Mode

ENVIRONMENT = Environment(Path("/work/project"), "Linux 6.1", "2025-01-02", "main", "clean")


def test_prompt_without_instructions_or_skills_has_neither_section() -> None:
    prompt = build_system_prompt(Mode.DEFAULT, ENVIRONMENT)
    assert MODE_RULES[Mode.DEFAULT] in prompt and "Workspace: /work/project" in prompt
    assert "# Project instructions" not in prompt and "# Skills" not in prompt


def test_prompt_includes_instructions_after_the_environment() -> None:
    prompt = build_system_prompt(Mode.PLAN, ENVIRONMENT, instructions="## AGENTS.md\n\nUse tabs.")
    assert prompt.index("# Environment") < prompt.index("# Project instructions") < prompt.index("Use tabs.")


def test_prompt_lists_skills_by_name_and_description() -> None:
    skills = [("pdf", "Read and fill PDF forms."), ("release", "Cut a release:\n  tag, changelog, publish.")]
    prompt = build_system_prompt(Mode.AUTO_EDIT, ENVIRONMENT, instructions="rules", skills=skills)
    assert "- pdf: Read and fill PDF forms." in prompt
    assert "- release: Cut a release: tag, changelog, publish." in prompt
    assert "`skill` tool" in prompt
    assert prompt.index("# Project instructions") < prompt.index("# Skills")
