"""Project instructions (SPEC 10): the ``AGENTS.md`` (and ``CODER.md``) files that tell the model how a project
wants to be worked on.

Read like Codex reads ``AGENTS.md``: the user's global file first (``$XDG_CONFIG_HOME/coder/``, by default
``~/.config/coder/``), then every folder from the repository root (the git root, else the workspace root) down to
the working directory, so the most specific instructions come last and read as the final word. Each file gets a
heading naming it; the whole is capped in size and says where it was cut.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from engine.record import record

INSTRUCTION_FILES = ("AGENTS.md", "CODER.md")
# Codex's default cap for project docs: enough for real guidance, small next to any context window.
MAX_INSTRUCTION_CHARS = 32 * 1024


@record
class InstructionFile:
    path: Path
    # How the heading names it: relative to the repository root, or ``~/...`` for the global file.
    label: str
    text: str


@record
class Instructions:
    """What goes into the system prompt. ``text`` is empty when there are no instruction files."""

    text: str
    files: tuple[InstructionFile, ...]
    truncated: bool
    # Files that exist but could not be read, with the reason, for a notice.
    problems: tuple[str, ...] = ()


def load_instructions(
    workspace: Path,
    cwd: Path | None = None,
    *,
    env: Mapping[str, str] | None = None,
    max_chars: int = MAX_INSTRUCTION_CHARS,
) -> Instructions:
    """Finds, reads and joins the instruction files for ``cwd`` (the workspace root by default)."""
    if max_chars < 1:
        raise ValueError(f"max_chars must be at least 1, got {max_chars}")
    workspace = workspace.resolve()
    cwd = (cwd or workspace).resolve()
    files: list[InstructionFile] = []
    problems: list[str] = []
    global_folder = user_instructions_dir(env)
    for name in INSTRUCTION_FILES:
        _read_into(files, problems, global_folder / name, _home_label(global_folder / name, env))
    root = repository_root(cwd, workspace)
    for folder in folders_between(root, cwd):
        for name in INSTRUCTION_FILES:
            path = folder / name
            _read_into(files, problems, path, path.relative_to(root).as_posix())
    text, truncated = render(files, max_chars)
    return Instructions(text=text, files=tuple(files), truncated=truncated, problems=tuple(problems))


def user_instructions_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/coder``, by default ``~/.config/coder`` (where the user's config file lives too)."""
    env = os.environ if env is None else env
    config_home = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(config_home) / "coder"


def repository_root(cwd: Path, workspace: Path) -> Path:
    """The nearest folder at or above ``cwd`` holding ``.git`` (a folder, or a file for worktrees and submodules);
    the workspace root when there is none."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return workspace


def folders_between(root: Path, cwd: Path) -> list[Path]:
    """``root``, then each folder down to ``cwd``; just ``root`` when ``cwd`` is not inside it."""
    try:
        parts = cwd.relative_to(root).parts
    except ValueError:
        return [root]
    folders = [root]
    for part in parts:
        folders.append(folders[-1] / part)
    return folders


def render(files: list[InstructionFile], max_chars: int) -> tuple[str, bool]:
    """Joins the files under headings, in order, within ``max_chars``; a cut says how much was left out."""
    if not files:
        return "", False
    sections = [f"## {item.label}\n\n{item.text.strip()}" for item in files]
    text = "\n\n".join(sections)
    if len(text) <= max_chars:
        return text, False
    omitted = len(text) - max_chars
    kept = text[:max_chars].rstrip()
    return f"{kept}\n\n[instructions cut here: {omitted} more characters exceed the {max_chars}-character cap]", True


def _read_into(files: list[InstructionFile], problems: list[str], path: Path, label: str) -> None:
    if not path.is_file() or any(item.path == path.resolve() for item in files):
        return
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        problems.append(f"{path}: cannot be read ({exc.strerror or exc})")
        return
    if text.strip():
        files.append(InstructionFile(path=path.resolve(), label=label, text=text))


def _home_label(path: Path, env: Mapping[str, str] | None) -> str:
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home())
    try:
        return "~/" + path.relative_to(home).as_posix()
    except ValueError:
        return str(path)
