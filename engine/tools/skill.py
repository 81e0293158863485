"""The ``skill`` tool (SPEC 5, 16): loads one skill's instructions, so the model follows them for the request at hand.

It answers with the body of ``SKILL.md``, the skill's folder and the other files in it. A skill of the user's
config folder or of the built-in set lives outside the workspace, where ``read`` cannot go; ``file`` reads one of
those files here instead, confined to the skill's own folder.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from pydantic import BaseModel, Field

from engine.errors import ToolError
from engine.skills.catalog import SkillCatalog
from engine.skills.skill import SKILL_FILE, Skill
from engine.text_diff import looks_binary
from engine.tools.base import Tool, ToolContext, ToolKind, ToolOutput
from engine.tools.fileio import decode_text
from engine.tools.walk import regular_files

# A skill folder with more files than this is listed in part; the model can still ask for any file by name.
MAX_LISTED_FILES = 100


class SkillParams(BaseModel):
    name: str = Field(min_length=1, description="The skill's name, as listed under '# Skills' in the system prompt.")
    file: str | None = Field(
        default=None,
        description="Optional: a file of the skill's folder to read instead of its instructions, as named in the "
        "`files` list of an earlier call (for example 'scripts/check.py' or 'reference.md').",
    )


class SkillTool(Tool[SkillParams]):
    name = "skill"
    description = (
        "Load a skill: instructions for a particular kind of work, listed by name and description under "
        "'# Skills' in the system prompt. Call it when a request fits a skill, before starting the work, and "
        "follow the instructions it returns. The result also gives the skill's folder and the other files in it "
        "(scripts, references, templates); pass `file` to read one of them."
    )
    params = SkillParams
    kind = ToolKind.READ

    def __init__(self, catalog: SkillCatalog) -> None:
        self._catalog = catalog

    def key_argument(self, params: SkillParams) -> str:
        return f"{params.name}/{params.file}" if params.file else params.name

    async def run(self, params: SkillParams, ctx: ToolContext) -> ToolOutput:
        skill = self._find(params.name)
        folder = _shown_folder(skill, ctx)
        if params.file is not None:
            text, note = await asyncio.to_thread(_read_skill_file, skill, params.file, ctx.limits.output_cap_bytes)
            data: dict[str, object] = {"name": skill.name, "file": params.file, "content": text}
            if note:
                data["note"] = note
            return ToolOutput(data=data)
        files = await asyncio.to_thread(_skill_files, skill.folder)
        data = {
            "name": skill.name,
            "source": skill.source.value,
            "folder": folder,
            "instructions": skill.body,
            "files": files[:MAX_LISTED_FILES],
        }
        if len(files) > MAX_LISTED_FILES:
            data["note"] = f"truncated: listing {MAX_LISTED_FILES} of {len(files)} files"
        return ToolOutput(data=data)

    def _find(self, name: str) -> Skill:
        skill = self._catalog.get(name)
        if skill is not None:
            return skill
        problems = self._catalog.problems_of(name)
        unused = [problem.reason for problem in problems if problem.reason.startswith("not used:")]
        if unused and len(unused) == len(problems):  # a skill left out on purpose (an untrusted folder's) is not broken
            raise ToolError(f"skill {name!r} is {unused[0]}; carry on without it")
        if problems:
            reasons = "; ".join(str(problem) for problem in problems)
            raise ToolError(f"skill {name!r} is broken and cannot be loaded ({reasons}); carry on without it")
        names = self._catalog.names()
        if not names:
            raise ToolError(f"unknown skill {name!r}: no skills are installed; carry on without one")
        raise ToolError(f"unknown skill {name!r}; available skills: {', '.join(names)}")


def _shown_folder(skill: Skill, ctx: ToolContext) -> str:
    """Workspace-relative when the skill is in the project (so ``read`` and ``bash`` can use it), else absolute."""
    if skill.folder.resolve().is_relative_to(ctx.workspace.root):
        return ctx.workspace.display(skill.folder.resolve())
    return str(skill.folder)


def _skill_files(folder: Path) -> list[str]:
    """Every file of the skill but SKILL.md, relative to its folder, hidden ones left out, sorted; through the
    bounded walk (SPEC 13), so a deep or looping folder costs a bounded time."""

    def shown(relative: str) -> bool:
        return relative != SKILL_FILE and not any(part.startswith(".") for part in relative.split("/"))

    try:
        return regular_files(Path(os.path.realpath(folder)), keep=shown).files
    except OSError:
        return []


def _read_skill_file(skill: Skill, relative: str, cap_bytes: int) -> tuple[str, str | None]:
    folder = skill.folder.resolve()
    path = (folder / relative).resolve()
    if not path.is_relative_to(folder) or path == folder:
        raise ToolError(f"file {relative!r} is outside the folder of skill {skill.name!r}; name a file inside it")
    if path.is_dir():
        raise ToolError(f"{relative!r} is a folder of skill {skill.name!r}; the `files` list names its files")
    try:
        with path.open("rb") as handle:
            data = handle.read(cap_bytes + 1)
            size = os.fstat(handle.fileno()).st_size
    except FileNotFoundError as exc:
        raise ToolError(f"skill {skill.name!r} has no file {relative!r}; its files: {_skill_files(folder)}") from exc
    except OSError as exc:
        raise ToolError(f"cannot read {relative!r} of skill {skill.name!r}: {exc.strerror or exc}") from exc
    if looks_binary(data):
        raise ToolError(f"{relative!r} of skill {skill.name!r} is a binary file; only text files can be read")
    if size <= cap_bytes:
        return decode_text(data).text, None
    # Cut on a line boundary where there is one, so the model does not see half a line.
    cut = data[:cap_bytes]
    cut = cut[: cut.rfind(b"\n") + 1] or cut
    return decode_text(cut).text, f"truncated: showing the first {len(cut)} of {size} bytes"
