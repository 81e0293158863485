"""Helpers for the skills tests: write a skill folder in a few words."""

from __future__ import annotations

from pathlib import Path


def write_skill(root: Path, name: str, description: str = "Does a thing.", body: str = "Do the thing.",
                *, folder: str | None = None) -> Path:
    """Writes ``<root>/<folder or name>/SKILL.md`` and returns the skill's folder."""
    path = root / (folder or name)
    path.mkdir(parents=True, exist_ok=True)
    (path / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n\n{body}\n", encoding="utf-8")
    return path
