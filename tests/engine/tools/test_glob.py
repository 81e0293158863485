"""SPEC 5 glob(pattern, path?): rg --files with .gitignore honoured, newest first, capped with a note.

The behaviours both backends share run twice: with rg, and with the pure-Python fallback used only without rg.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.errors import PathOutsideWorkspace, ToolError
from engine.tools.base import ToolContext
from engine.tools.glob import GlobTool
from engine.tools.ripgrep import find_ripgrep
from tests.engine.tools.support import run_tool, use_search_backend, with_limits

glob_tool = GlobTool()
needs_rg = pytest.mark.skipif(find_ripgrep() is None, reason="rg is not installed")


@pytest.fixture(params=[pytest.param("rg", marks=needs_rg), "python"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    use_search_backend(monkeypatch, request.param)
    return request.param


def _make(root: Path, *paths: str) -> None:
    """Creates the files, the first given the newest, each a minute older than the one before."""
    for age, relative in enumerate(paths):
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(relative)
        stamp = 1_700_000_000 - age * 60
        os.utime(path, (stamp, stamp))


async def test_glob_lists_matches_newest_first(backend: str, ctx: ToolContext, root: Path) -> None:
    _make(root, "src/new.py", "mid.py", "src/pkg/old.py", "notes.md")
    output = await run_tool(glob_tool, ctx, pattern="**/*.py")
    assert output.data["files"] == ["src/new.py", "mid.py", "src/pkg/old.py"]
    assert output.data["total"] == 3


async def test_glob_pattern_without_slash_matches_at_any_depth(backend: str, ctx: ToolContext, root: Path) -> None:
    _make(root, "a/b/c/test_x.py", "test_y.py", "x_test.py")
    output = await run_tool(glob_tool, ctx, pattern="test_*.py")
    assert output.data["files"] == ["a/b/c/test_x.py", "test_y.py"]


async def test_glob_pattern_is_relative_to_path(backend: str, ctx: ToolContext, root: Path) -> None:
    _make(root, "src/sub/a.py", "src/b.py", "sub/c.py")
    output = await run_tool(glob_tool, ctx, pattern="sub/*.py", path="src")
    assert output.data["files"] == ["src/sub/a.py"]
    assert output.data["path"] == "src"


async def test_glob_includes_hidden_files_but_never_git_or_coder(backend: str, ctx: ToolContext, root: Path) -> None:
    _make(root, ".github/ci.yml", ".git/config.yml", ".coder/sessions/s.yml", "app.yml")
    output = await run_tool(glob_tool, ctx, pattern="*.yml")
    assert sorted(output.data["files"]) == [".github/ci.yml", "app.yml"]


async def test_glob_caps_results_with_a_note(backend: str, ctx: ToolContext, root: Path) -> None:
    _make(root, *(f"f{n}.txt" for n in range(7)))
    output = await run_tool(glob_tool, with_limits(ctx, max_results=3), pattern="*.txt")
    assert output.data["files"] == ["f0.txt", "f1.txt", "f2.txt"]
    assert output.data["total"] == 7
    assert output.data["note"].startswith("truncated: showing the 3 newest of 7 files")


async def test_glob_with_no_match_is_an_empty_result(backend: str, ctx: ToolContext, root: Path) -> None:
    _make(root, "a.py")
    output = await run_tool(glob_tool, ctx, pattern="*.rs")
    assert output.data["files"] == [] and output.data["total"] == 0


async def test_glob_does_not_follow_symlinks_out(backend: str, ctx: ToolContext, root: Path, tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.py").write_text("")
    (root / "escape").symlink_to(tmp_path / "outside")
    (root / "secret_link.py").symlink_to(tmp_path / "outside" / "secret.py")
    output = await run_tool(glob_tool, ctx, pattern="**/*.py")
    assert output.data["files"] == []


@needs_rg
async def test_glob_honours_gitignore(ctx: ToolContext, root: Path) -> None:
    (root / ".git").mkdir()
    (root / ".gitignore").write_text("build/\n")
    _make(root, "build/gen.py", "src/app.py")
    output = await run_tool(glob_tool, ctx, pattern="*.py")
    assert output.data["files"] == ["src/app.py"]


@needs_rg
async def test_glob_understands_brace_alternatives(ctx: ToolContext, root: Path) -> None:
    _make(root, "a.ts", "b.tsx", "c.js")
    output = await run_tool(glob_tool, ctx, pattern="*.{ts,tsx}")
    assert output.data["files"] == ["a.ts", "b.tsx"]


async def test_glob_path_must_be_a_folder(ctx: ToolContext, root: Path) -> None:
    _make(root, "a.py")
    with pytest.raises(ToolError, match="a.py is a file, not a folder"):
        await run_tool(glob_tool, ctx, pattern="*", path="a.py")
    with pytest.raises(ToolError, match="folder not found: missing"):
        await run_tool(glob_tool, ctx, pattern="*", path="missing")


async def test_glob_refuses_a_path_outside_the_workspace(ctx: ToolContext) -> None:
    with pytest.raises(PathOutsideWorkspace):
        await run_tool(glob_tool, ctx, pattern="*", path="/etc")


async def test_glob_invalid_pattern_is_a_clear_error(backend: str, ctx: ToolContext, root: Path) -> None:
    _make(root, "a.py")
    with pytest.raises(ToolError, match=r"glob.*'\*\*\*/\['.*"):
        await run_tool(glob_tool, ctx, pattern="***/[")
