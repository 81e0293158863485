"""The git worktrees agents work in (SPEC 26): one a new branch ``coder/<name>`` checked out from HEAD in
``<workspace>/.coder/worktrees/<name>``, so nothing an agent writes lands in the main checkout or in another agent's
tree. ``.coder/`` is ignored by git and read-only to the main session's tools, so the trees neither show in
``git status`` nor are written from the main session.

Everything here runs git in a thread's time (``asyncio.to_thread``): each call blocks until git returns.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path

from engine.errors import EngineError
from engine.record import record
from engine.storage.state_folder import STATE_FOLDER

WORKTREES_FOLDER = "worktrees"
BRANCH_PREFIX = "coder/"
# A name is a git branch component and a folder name: lower-case words joined by dashes.
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")


class WorktreeError(EngineError):
    """A worktree could not be made or removed; the message says why and what to do."""


@record
class Worktree:
    """Where an agent works: ``root`` the worktree's top, ``workspace`` the folder matching the main workspace in it
    (the same as ``root`` unless coder-tui runs in a subfolder of the repository)."""

    root: Path
    workspace: Path
    branch: str
    base_commit: str


def git_env(env: Mapping[str, str]) -> dict[str, str]:
    """The environment git runs with: the program path and home folder of ``env`` (the user's git identity and
    settings), never a repository or index another git process set for itself, and messages in English."""
    kept = {name: env[name] for name in ("PATH", "HOME") if name in env}
    kept.setdefault("PATH", os.environ.get("PATH", "/usr/bin:/bin"))
    return {**kept, "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"}


def run_git(cwd: Path, env: Mapping[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """``git <args>`` in ``cwd``; never raises for git's own failure (the caller reads ``returncode``)."""
    try:
        return subprocess.run(
            ["git", *args], cwd=cwd, env=git_env(env), capture_output=True, text=True, check=False, timeout=120
        )
    except FileNotFoundError as exc:
        raise WorktreeError("git is not installed (or not on PATH): agents work in git worktrees") from exc
    except subprocess.TimeoutExpired as exc:
        raise WorktreeError(f"git {' '.join(args)} did not finish within two minutes") from exc


def repository_root(workspace: Path, env: Mapping[str, str]) -> Path:
    """The top of the git repository ``workspace`` is in, or ``WorktreeError`` saying why agents cannot start."""
    found = run_git(workspace, env, "rev-parse", "--show-toplevel")
    if found.returncode != 0:
        raise WorktreeError(
            f"{workspace} is not in a git repository: each agent works on a git worktree of its own, on its own "
            "branch. Make it one (git init, then commit your files) or start coder-tui in a repository"
        )
    return Path(found.stdout.strip()).resolve()


def head_commit(repo: Path, env: Mapping[str, str]) -> str:
    found = run_git(repo, env, "rev-parse", "--verify", "HEAD^{commit}")
    if found.returncode != 0:
        raise WorktreeError(
            f"the repository at {repo} has no commit yet: an agent's branch starts from HEAD. Commit once "
            "(git add -A && git commit -m start), then try again"
        )
    return found.stdout.strip()


def check_name(name: str) -> str:
    if not _NAME.match(name):
        raise WorktreeError(
            f"agent name {name!r} is not usable: lower-case letters, digits and dashes, at most 40, starting with a "
            "letter or digit"
        )
    return name


def name_for(task: str, taken: set[str]) -> str:
    """A short name from the task's first words (``fix-the-login``), numbered when taken."""
    words = re.findall(r"[a-z0-9]+", task.lower())[:3]
    base = "-".join(words)[:30].strip("-") or "agent"
    name, number = base, 2
    while name in taken:
        name, number = f"{base}-{number}", number + 1
    return name


def free_name(workspace: Path, hint: str, taken: set[str] | None = None) -> str:
    """A name from ``hint`` that no worktree of ``workspace`` has yet, nor any of ``taken``."""
    folder = workspace / STATE_FOLDER / WORKTREES_FOLDER
    return name_for(hint, (set(os.listdir(folder)) if folder.is_dir() else set()) | (taken or set()))


def worktree_path(workspace: Path, name: str) -> Path:
    return workspace / STATE_FOLDER / WORKTREES_FOLDER / name


def add_worktree(workspace: Path, name: str, env: Mapping[str, str]) -> Worktree:
    """A new branch ``coder/<name>`` from HEAD, checked out in ``.coder/worktrees/<name>`` of ``workspace``."""
    check_name(name)
    repo = repository_root(workspace, env)
    base = head_commit(repo, env)
    branch = BRANCH_PREFIX + name
    path = worktree_path(workspace, name)
    if path.exists():
        raise WorktreeError(f"{path} already exists: choose another name, or remove it (git worktree remove {path})")
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    made = run_git(repo, env, "worktree", "add", "--quiet", "-b", branch, str(path), base)
    if made.returncode != 0:
        raise WorktreeError(f"git worktree add failed for {branch}: {made.stderr.strip() or made.stdout.strip()}")
    inside = Path(os.path.relpath(workspace.resolve(), repo))
    return Worktree(root=path, workspace=path / inside if str(inside) != "." else path, branch=branch, base_commit=base)


def remove_worktree(workspace: Path, root: Path, branch: str, env: Mapping[str, str]) -> None:
    """Removes the worktree at ``root`` (with what is uncommitted in it) and deletes ``branch``."""
    repo = repository_root(workspace, env)
    if root.exists():
        removed = run_git(repo, env, "worktree", "remove", "--force", str(root))
        if removed.returncode != 0:
            raise WorktreeError(f"git worktree remove failed for {root}: {removed.stderr.strip()}")
    run_git(repo, env, "worktree", "prune")
    deleted = run_git(repo, env, "branch", "-D", branch)
    if deleted.returncode != 0 and "not found" not in deleted.stderr:
        raise WorktreeError(f"git branch -D {branch} failed: {deleted.stderr.strip()}")


def remove_if_untouched(workspace: Path, worktree: Worktree, env: Mapping[str, str]) -> bool:
    """Removes ``worktree`` and its branch when nothing was done in them (no change in the tree, no commit on the
    branch); False, leaving them, otherwise."""
    status = run_git(worktree.root, env, "status", "--porcelain")
    head = run_git(worktree.root, env, "rev-parse", "HEAD")
    if status.returncode != 0 or status.stdout.strip() or head.stdout.strip() != worktree.base_commit:
        return False
    remove_worktree(workspace, worktree.root, worktree.branch, env)
    return True


# Who an agent's commit is by when git knows no one (a fresh machine, a test's repository).
_FALLBACK_IDENTITY = ("-c", "user.name=coder-tui agent", "-c", "user.email=agent@coder-tui.invalid")


def commit_all(root: Path, message: str, env: Mapping[str, str]) -> bool:
    """Commits everything changed in the worktree at ``root`` on its branch; False when nothing changed."""
    added = run_git(root, env, "add", "-A")
    if added.returncode != 0:
        raise WorktreeError(f"git add failed in {root}: {added.stderr.strip()}")
    if run_git(root, env, "diff", "--cached", "--quiet").returncode == 0:
        return False
    known = run_git(root, env, "config", "user.email").stdout.strip()
    identity = () if known else _FALLBACK_IDENTITY
    made = run_git(root, env, *identity, "commit", "--quiet", "--no-verify", "-m", message)
    if made.returncode != 0:
        raise WorktreeError(f"git commit failed in {root}: {made.stderr.strip() or made.stdout.strip()}")
    return True
