"""The hostile corpus's world: a git workspace beside an outside folder that nothing may read unasked or change."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SECRET = "the outside secret\n"


def corpus_lines(corpus: Path) -> list[pytest.ParameterSet]:
    """A corpus file's command lines (blank lines and ``#`` comments left out), each a case named by its line."""
    lines = corpus.read_text(encoding="utf-8").splitlines()
    return [
        pytest.param(line, id=f"{number}:{line[:60]}")
        for number, line in enumerate(lines, start=1)
        if line.strip() and not line.startswith("#")
    ]


def git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, env=env)


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    """(workspace, outside): the workspace is a committed git repository with a link to the outside folder."""
    outside = tmp_path / "out"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    (outside / "data.json").write_text('{"a": 1}\n')
    # A sibling whose name starts with the workspace's: a string-prefix "inside the workspace" check lets it in.
    evil = tmp_path / "ws-evil"
    evil.mkdir()
    (evil / "secret.txt").write_text(SECRET)
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "README.md").write_text("# project\n")
    (root / "notes.txt").write_text("notes\nTODO one\n")
    (root / "data.json").write_text('{"a": 1}\n')
    (root / "src" / "main.py").write_text("print('hi')  # TODO\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    (root / "src" / "up").symlink_to("..")
    (root / "vendor" / "lib" / ".git").mkdir(parents=True)  # a nested repository, as a clone inside the project
    (root / "link_out").symlink_to(outside)
    (root / ".coder").mkdir()
    return root.resolve(), outside.resolve()


def snapshot(folder: Path) -> dict[str, tuple[int, bytes]]:
    """Every file under ``folder`` (links not followed) with its mode and content, to compare before and after."""
    found: dict[str, tuple[int, bytes]] = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            found[str(path.relative_to(folder))] = (path.stat().st_mode, path.read_bytes())
    return found
