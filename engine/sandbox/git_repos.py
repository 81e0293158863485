"""Every git repository under a workspace, and the config files git reads for each (SPEC 13, 20; decision of
2026-12-07: nested repositories, submodules, `git -C`, `cd` then git).

A read-only git command runs programs that a repository's config names by a name of its own choosing: the diff and
filter drivers (`diff.<name>.textconv`, `filter.<name>.clean`...) and the external diff. The settings that need no
name (fsmonitor, hooks, pager, transports) are switched off for every repository at once through the environment
(``engine.sandbox.child_env``); these need the names, so they are read from the config of every repository git could
use from inside the workspace:

- the repository discovery finds from the workspace (its `.git` folder or the folder a `.git` file points to, its
  common folder for a worktree), and every repository kept inside a git folder (`modules/` of submodules,
  `worktrees/`);
- every folder under the workspace shaped like a git folder (`HEAD` with `objects` or a `commondir`): a nested
  `.git`, a submodule's, a bare repository under any name that `git --git-dir=vendor/odd` would use; and the folder
  every `.git` file points to.

The walk is breadth first, does not follow links, does not enter a git folder's objects, and stops after
``MAX_FOLDERS`` folders; ``RepositoryScan.complete`` says whether it saw everything, so that the caller can switch
off, without names, what it still can (the external diff).
"""

from __future__ import annotations

import collections
import os
import re
from pathlib import Path

from engine.record import record

# Folders looked at per scan: a few milliseconds for an ordinary project, bounded for a monorepo.
MAX_FOLDERS = 4000
# Inside a git folder, only these hold other repositories.
_NESTED_IN_GIT_FOLDER = ("modules", "worktrees")
_GITDIR_LINE = re.compile(r"\s*gitdir:\s*(.+?)\s*$", re.MULTILINE)


@record
class RepositoryScan:
    config_files: tuple[Path, ...]
    # False when the walk stopped at MAX_FOLDERS before seeing the whole workspace.
    complete: bool


def scan(workspace: Path) -> RepositoryScan:
    """The config files of every repository git could use from inside ``workspace``."""
    git_dirs: list[Path] = []
    own = discovered_git_dir(workspace)
    if own is not None:
        git_dirs.append(own)
    complete = _walk(workspace, git_dirs)
    if own is not None and not _under(own, workspace):
        _walk(own, git_dirs)  # a worktree's or a linked git folder outside: its submodules
    files: list[Path] = []
    for git_dir in git_dirs:
        for path in _config_files(git_dir):
            if path not in files:
                files.append(path)
    return RepositoryScan(tuple(files), complete)


def discovered_git_dir(start: Path) -> Path | None:
    """The git dir that discovery from ``start`` finds: a `.git` folder, or the one a `.git` file points to."""
    for folder in (start, *start.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            return dot_git
        if dot_git.is_file():
            return _pointed_to(dot_git)
    return None


def _walk(top: Path, git_dirs: list[Path]) -> bool:
    """Adds the git folders found under ``top`` to ``git_dirs``; False when it stopped before the end."""
    queue = collections.deque([str(top)])
    seen = 0
    while queue:
        if seen >= MAX_FOLDERS:
            return False
        folder = queue.popleft()
        seen += 1
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        names = {entry.name for entry in entries}
        is_git_dir = "HEAD" in names and ("objects" in names or "commondir" in names)
        if is_git_dir:
            _add(git_dirs, Path(folder))
        for entry in entries:
            if entry.name == ".git" and entry.is_file(follow_symlinks=False):
                pointed = _pointed_to(Path(entry.path))
                if pointed is not None:
                    _add(git_dirs, pointed)
            elif entry.is_dir(follow_symlinks=False) and (not is_git_dir or entry.name in _NESTED_IN_GIT_FOLDER):
                queue.append(entry.path)
    return True


def _config_files(git_dir: Path) -> list[Path]:
    """A repository's config files: `config` and `config.worktree` of its git dir and of its common dir."""
    dirs = [git_dir]
    common = read_small(git_dir / "commondir")
    if common is not None and common.strip():
        dirs.append((git_dir / common.strip()).resolve())
    return [folder / name for folder in dirs for name in ("config", "config.worktree")]


def _pointed_to(dot_git_file: Path) -> Path | None:
    match = _GITDIR_LINE.match(read_small(dot_git_file) or "")
    return (dot_git_file.parent / match.group(1)).resolve() if match else None


def _add(git_dirs: list[Path], git_dir: Path) -> None:
    if git_dir not in git_dirs:
        git_dirs.append(git_dir)


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def read_small(path: Path, limit: int = 1 << 20) -> str | None:
    """The start of a small text file, or None when it cannot be read."""
    try:
        with open(path, "rb") as handle:
            return handle.read(limit).decode("utf-8", errors="replace")
    except OSError:
        return None
