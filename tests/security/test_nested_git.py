"""SPEC 13, 20 (decision of 2026-12-07): every repository under the workspace has its program-running git settings
neutralised for unasked git: a nested repository (`vendor/lib/.git/config`), one nested deep, a submodule (its git
folder in `.git/modules/`), a bare repository under any name used with `--git-dir`, reached by `git -C`, `cd` then
git, `--git-dir`/`--work-tree`, or a recursing `git status` at the top. Each hostile program prints a mark and
touches a file outside; run unasked, with the sandbox and with none at all (the environment alone must hold), the
mark is nowhere; run in yolo, where nothing neutralises it, it is there, so each case is real."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from engine.sandbox import Confinement, SandboxGrant, SandboxSupport, detect
from engine.tools.bash import run_command
from tests.security.conftest import git

UNASKED = SandboxGrant(Confinement.UNASKED, network=False)
SUPPORT = detect()
# (config key, the value that runs a program); {ran} prints the mark and touches the file outside.
HOSTILE = [
    ("diff.external", "sh -c '{ran}' --"),
    ("diff.evil.textconv", "sh -c '{ran}; cat \"$0\"'"),
    ("diff.evil.command", "sh -c '{ran}' --"),
    ("filter.evil.clean", "sh -c '{ran}; cat'"),
    ("filter.evil.process", "sh -c '{ran}'"),
    ("core.fsmonitor", "sh -c '{ran}; false'"),
    ("core.pager", "sh -c '{ran}; cat'"),
]
# Where each repository is, and the commands that reach it.
COMMANDS = {
    "nested": ["git -C vendor/lib diff", "cd vendor/lib && git diff", "git -C vendor/lib status",
               "cd vendor/lib && git log -p", "git -C vendor/lib show HEAD", "cd vendor && cd lib && git diff",
               "git --git-dir=vendor/lib/.git --work-tree=vendor/lib diff", "git -C vendor/lib blame lib.txt"],
    "deep": ["git -C a/b/c/d/e/f/g/h/repo diff", "cd a/b/c/d/e/f/g/h/repo && git status"],
    "submodule": ["git -C libs/sub diff", "cd libs/sub && git diff", "git status", "git diff --submodule=diff"],
    "bare": ["git --git-dir=vendor/odd log -p", "git --git-dir=vendor/odd show HEAD"],
}  # fmt: skip


def _repository(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q", "-b", "main")
    (folder / "lib.txt").write_text("one\n")
    (folder / ".gitattributes").write_text("* diff=evil filter=evil\n")
    git(folder, "add", ".")
    git(folder, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "i")


def _arm(git_dir: Path, key: str, value: str, mark: Path, worktree: Path | None) -> None:
    ran = f"echo RAN-NESTED >&2; touch {mark}"
    subprocess.run(["git", "config", "--file", str(git_dir / "config"), key, value.format(ran=ran)], check=True)
    (git_dir / "info").mkdir(exist_ok=True)
    (git_dir / "info" / "attributes").write_text("* diff=evil filter=evil\n")
    if worktree is not None:
        (worktree / "lib.txt").write_text("one\ntwo\n")
        later = (worktree / ".gitattributes").stat().st_mtime + 10
        os.utime(worktree / ".gitattributes", (later, later))  # an unchanged file git must read again


@pytest.fixture(scope="module")
def repositories(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository holding every kind of repository under it, made once (a dozen git processes): each test arms
    a copy."""
    folder = tmp_path_factory.mktemp("repositories")
    root = folder / "ws"
    root.mkdir()
    (root / "README.md").write_text("# project\n")
    git(root, "init", "-q", "-b", "main")
    _repository(root / "vendor" / "lib")
    _repository(root / "a" / "b" / "c" / "d" / "e" / "f" / "g" / "h" / "repo")
    _repository(folder / "upstream")
    git(root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(folder / "upstream"), "libs/sub")
    git(root, "clone", "-q", "--bare", str(folder / "upstream"), "vendor/odd")
    git(root, "add", "README.md", ".gitmodules", "libs/sub")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "i")
    return root


@pytest.fixture
def world(tmp_path: Path, repositories: Path) -> tuple[Path, Path]:
    """(workspace, outside): a copy of ``repositories`` (every path in them relative), and a folder outside."""
    outside = tmp_path / "out"
    outside.mkdir()
    root = tmp_path / "ws"
    shutil.copytree(repositories, root, symlinks=True)
    return root.resolve(), outside.resolve()


def _git_dir_and_worktree(root: Path, where: str) -> tuple[Path, Path | None]:
    return {
        "nested": (root / "vendor" / "lib" / ".git", root / "vendor" / "lib"),
        "deep": (root / "a/b/c/d/e/f/g/h/repo/.git", root / "a/b/c/d/e/f/g/h/repo"),
        "submodule": (root / ".git" / "modules" / "libs" / "sub", root / "libs" / "sub"),
        "bare": (root / "vendor" / "odd", None),
    }[where]


# Every setting with no sandbox at all (the environment alone); under the sandbox too, with a driver of each kind.
CASES = [
    pytest.param(where, command, key, value, sandboxed, id=f"{where}:{command}:{key}:{label}")
    for where, commands in COMMANDS.items() for command in commands for key, value in HOSTILE
    for sandboxed, label in ((False, "environment alone"), (True, "sandboxed"))
    if not sandboxed or key in ("diff.evil.textconv", "filter.evil.clean")
]  # fmt: skip


@pytest.mark.parametrize(("where", "command", "key", "value", "sandboxed"), CASES)
async def test_unasked_git_runs_no_program_of_any_repository(
    world: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, sandboxed: bool, where: str, command: str, key: str,
    value: str,
) -> None:
    if sandboxed and not SUPPORT.available:
        pytest.skip(f"no sandbox here ({SUPPORT})")
    support = SUPPORT if sandboxed else SandboxSupport("none")
    monkeypatch.setattr("engine.tools.bash.detect", lambda: support)
    root, outside = world
    mark = outside / "ran"
    git_dir, worktree = _git_dir_and_worktree(root, where)
    _arm(git_dir, key, value, mark, worktree)
    result = await run_command(command, root, 30, 100_000, sandbox=UNASKED)
    assert "RAN-NESTED" not in result.stdout + result.stderr, result
    assert not mark.exists()


@pytest.mark.parametrize(("where", "command", "key", "value"), [
    ("nested", "git -C vendor/lib diff", "diff.external", HOSTILE[0][1]),
    ("nested", "cd vendor/lib && git log -p", "diff.evil.textconv", HOSTILE[1][1]),
    ("deep", "git -C a/b/c/d/e/f/g/h/repo diff", "filter.evil.clean", HOSTILE[3][1]),
    ("submodule", "git status", "filter.evil.clean", HOSTILE[3][1]),
    ("submodule", "git -C libs/sub diff", "diff.evil.command", HOSTILE[2][1]),
    ("bare", "git --git-dir=vendor/odd log -p", "diff.evil.textconv", HOSTILE[1][1]),
])  # fmt: skip
async def test_the_hostile_repositories_do_run_their_programs_unneutralised(
    world: tuple[Path, Path], where: str, command: str, key: str, value: str
) -> None:
    """Yolo (no grant: the user's environment, nothing switched off): the same setting does run its program."""
    root, outside = world
    mark = outside / "ran"
    git_dir, worktree = _git_dir_and_worktree(root, where)
    _arm(git_dir, key, value, mark, worktree)
    await run_command(command, root, 30, 100_000, sandbox=None)
    assert mark.exists()
