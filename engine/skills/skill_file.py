"""Reading one ``SKILL.md``: YAML front matter between ``---`` lines, then the body of instructions.

The front matter follows the Agent Skills convention: ``name`` (lowercase letters, digits and single hyphens, at most
64 characters, the same as the folder's name) and ``description`` (what the skill is for and when to use it, at most
1024 characters); other keys (``license``, ``metadata``, ``allowed-tools``...) are allowed and ignored. YAML is read
with PyYAML's safe loader, since hand parsing gets quoting, colons and multi-line strings wrong. Every way a file can
be wrong raises ``SkillFormatError`` with a reason; nothing here crashes discovery.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.skills.skill import SKILL_FILE, Skill, SkillSource

# Skills are loaded into the model's context whole; a file this large is a mistake, not instructions.
MAX_SKILL_FILE_BYTES = 256 * 1024
NAME_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"
_DELIMITER = "---"
# YAML also allows "..." to end a document; some editors write it.
_CLOSERS = ("---", "...")


class SkillFormatError(ValueError):
    """A ``SKILL.md`` that cannot be used; the message says why (the caller adds the file)."""


class FrontMatter(BaseModel):
    model_config = ConfigDict(extra="allow", str_strip_whitespace=True)

    name: str = Field(min_length=1, max_length=64, pattern=NAME_PATTERN)
    description: str = Field(min_length=1, max_length=1024)


def read_skill(folder: Path, source: SkillSource) -> Skill:
    """The skill in ``folder``/SKILL.md; ``SkillFormatError`` when the file is missing, unreadable or malformed."""
    path = folder / SKILL_FILE
    try:
        size = path.stat().st_size
        if size > MAX_SKILL_FILE_BYTES:
            raise SkillFormatError(f"the file is {size} bytes; a skill is at most {MAX_SKILL_FILE_BYTES} bytes")
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SkillFormatError(f"not UTF-8 text (byte {exc.start} cannot be decoded)") from exc
    except OSError as exc:
        raise SkillFormatError(f"cannot read the file: {exc.strerror or exc}") from exc
    front, body = parse_skill_text(text)
    if front.name != folder.name:
        raise SkillFormatError(
            f"name {front.name!r} does not match its folder {folder.name!r}: rename one so they are the same"
        )
    return Skill(name=front.name, description=" ".join(front.description.split()), body=body, source=source,
                 folder=folder)


def parse_skill_text(text: str) -> tuple[FrontMatter, str]:
    """The validated front matter and the body (stripped) of a ``SKILL.md`` text."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != _DELIMITER:
        raise SkillFormatError("no YAML front matter: the file must start with a '---' line")
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in _CLOSERS), None)
    if end is None:
        raise SkillFormatError("the front matter is never closed: add a '---' line after it")
    data = _load_yaml("\n".join(lines[1:end]))
    try:
        front = FrontMatter.model_validate(data)
    except ValidationError as exc:
        raise SkillFormatError(_describe(exc)) from exc
    body = "\n".join(lines[end + 1 :]).strip()
    if not body:
        raise SkillFormatError("the body is empty: write the skill's instructions after the front matter")
    return front, body


def _load_yaml(source: str) -> dict[str, Any]:
    import yaml

    try:
        data = yaml.safe_load(source)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        # Line numbers are the file's: the front matter starts on line 2.
        where = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        hint = " (quote values that contain ': ')" if "mapping values" in problem else ""
        raise SkillFormatError(f"invalid YAML front matter{where}: {problem}{hint}") from exc
    if data is None:
        raise SkillFormatError("the front matter is empty: it needs 'name' and 'description'")
    if not isinstance(data, dict):
        raise SkillFormatError(f"the front matter must be a mapping of keys to values, not a {type(data).__name__}")
    return data


def _describe(exc: ValidationError) -> str:
    problems = []
    for error in exc.errors():
        key = ".".join(str(part) for part in error["loc"]) or "front matter"
        if error["type"] == "missing":
            problems.append(f"'{key}' is missing")
        elif error["type"] == "string_pattern_mismatch":
            problems.append(
                f"'{key}' must be lowercase letters, digits and single hyphens (like 'code-review'), "
                f"got {error['input']!r}"
            )
        elif error["type"] == "string_type":
            problems.append(f"'{key}' must be text, got {type(error['input']).__name__} {error['input']!r}")
        else:
            problems.append(f"'{key}': {error['msg']}")
    return "; ".join(problems)
