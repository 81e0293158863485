"""The workspace's files for ``@path`` completion, listed with ripgrep so ``.gitignore`` is honoured.

Listing runs in a thread (a big repository takes a moment) and is capped; folders are derived from the files so a
mention can name a folder too.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from coder_tui.link.terminal_text import terminal_text
from engine.tools.ripgrep import SKIPPED_FOLDERS, find_ripgrep

MAX_FILES = 20_000
_SKIPPED_DIRS = {".git", ".coder", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache"}


def list_workspace_paths(root: Path, limit: int = MAX_FILES) -> list[str]:
    """Workspace-relative posix paths of files (and their folders, with a trailing ``/``), sorted."""
    files = _rg_files(root, limit)
    if files is None:
        files = _walk_files(root, limit)
    # A file name is outside text (SPEC 25): one holding an escape sequence is listed drawable, not raw.
    files = [terminal_text(name) for name in files]
    folders = {parent + "/" for path in files for parent in _parents(path)}
    return sorted(set(files) | folders)


def _rg_files(root: Path, limit: int) -> list[str] | None:
    # The same ``rg`` the grep and glob tools use: beside this interpreter first, so an environment whose bin/ is
    # not on PATH (not activated, pipx, uv tool) still honours .gitignore.
    rg = find_ripgrep()
    if rg is None:
        return None
    skipped = [arg for name in SKIPPED_FOLDERS for arg in ("--glob", f"!{name}")]
    try:
        completed = subprocess.run(
            [rg, "--files", "--hidden", "--null", *skipped],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if completed.returncode not in (0, 1):
        return None
    # NUL-separated: a file name may hold a newline.
    return [name.removeprefix("./") for name in completed.stdout.split("\0")[:limit] if name]


def _walk_files(root: Path, limit: int) -> list[str]:
    """The fallback when ``rg`` is missing: a walk that skips the usual generated folders."""
    found: list[str] = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS)
        relative = Path(folder).relative_to(root)
        for name in sorted(names):
            found.append((relative / name).as_posix())
            if len(found) >= limit:
                return found
    return found


def _parents(path: str) -> list[str]:
    parts = path.split("/")[:-1]
    return ["/".join(parts[: index + 1]) for index in range(len(parts))]
