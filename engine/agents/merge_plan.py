"""What ``/merge <agent>`` would change in the main tree (SPEC 26): for each file the agent's branch changed since
its base commit, the content the main tree's file should get, or the reason it cannot get one.

Three versions of each file meet: the base (where the agent started), the agent's (its branch) and the main tree's
(the file on disk now, committed or not). A file the main tree left as it was at the base takes the agent's version;
one changed on both sides is merged line by line (``git merge-file``) when the changes do not overlap, and named as a
conflict when they do: no conflict markers are ever written. Binary files are named, not merged.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from engine.agents.worktree import WorktreeError, git_env, repository_root, run_git
from engine.record import record


@record
class FileMerge:
    """One file to change: ``path`` relative to the workspace; ``current`` what it holds now (None: absent),
    ``merged`` what it should hold (None: deleted)."""

    path: str
    current: str | None
    merged: str | None


@record
class MergePlan:
    changes: tuple[FileMerge, ...]
    # (path, why) of each file not merged: changed on both sides in overlapping lines, binary, outside the workspace.
    conflicts: tuple[tuple[str, str], ...]
    skipped: tuple[tuple[str, str], ...]


def plan_merge(workspace: Path, branch: str, base_commit: str, env: Mapping[str, str]) -> MergePlan:
    repo = repository_root(workspace, env)
    listed = run_git(repo, env, "diff", "--name-status", "--no-renames", "-z", base_commit, branch)
    if listed.returncode != 0:
        raise WorktreeError(f"git diff {base_commit[:12]} {branch} failed: {listed.stderr.strip()}")
    fields = listed.stdout.split("\0")
    changes: list[FileMerge] = []
    conflicts: list[tuple[str, str]] = []
    skipped: list[tuple[str, str]] = []
    for status, name in zip(fields[0::2], fields[1::2], strict=False):
        if not name:
            continue
        target = repo / name
        if not target.resolve().is_relative_to(workspace.resolve()):
            skipped.append((name, "outside the workspace"))
            continue
        display = os.path.relpath(target, workspace)
        base = None if status == "A" else _show(repo, env, base_commit, name)
        theirs = None if status == "D" else _show(repo, env, branch, name)
        ours = target.read_bytes() if target.is_file() else None
        if any(_binary(side) for side in (base, theirs, ours)):
            skipped.append((display, f"binary: take it with git checkout {branch} -- {name}"))
            continue
        if ours == theirs:
            continue
        if ours == base:
            changes.append(FileMerge(display, _text(ours), _text(theirs)))
        elif base is None or theirs is None or ours is None:
            why = "added on both sides" if base is None else "deleted on one side, changed on the other"
            conflicts.append((display, why))
        else:
            merged = _merge_file(ours, base, theirs, env)
            if merged is None:
                conflicts.append((display, "changed on both sides in the same lines"))
            else:
                changes.append(FileMerge(display, _text(ours), _text(merged)))
    return MergePlan(tuple(changes), tuple(conflicts), tuple(skipped))


def _show(repo: Path, env: Mapping[str, str], commit: str, name: str) -> bytes:
    shown = subprocess.run(
        ["git", "show", f"{commit}:{name}"], cwd=repo, env=git_env(env), capture_output=True, check=False, timeout=60
    )
    if shown.returncode != 0:
        raise WorktreeError(f"git show {commit}:{name} failed: {shown.stderr.decode(errors='replace').strip()}")
    return shown.stdout


def _merge_file(ours: bytes, base: bytes, theirs: bytes, env: Mapping[str, str]) -> bytes | None:
    """The three-way merge of one file, or None when the two sides' changes overlap."""
    with tempfile.TemporaryDirectory(prefix="coder-merge-") as folder:
        paths = []
        for label, content in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(folder) / label
            path.write_bytes(content)
            paths.append(str(path))
        merged = subprocess.run(
            ["git", "merge-file", "-p", "--quiet", *paths], env=git_env(env), capture_output=True, check=False,
            timeout=60,
        )
    if merged.returncode != 0:  # the number of conflicts, or an error: nothing is merged either way
        return None
    return merged.stdout


def _binary(content: bytes | None) -> bool:
    return content is not None and b"\0" in content[:8192]


def _text(content: bytes | None) -> str | None:
    return None if content is None else content.decode("utf-8", errors="replace")
