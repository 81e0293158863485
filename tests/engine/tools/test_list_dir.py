"""SPEC 5 list(path): one folder level, sorted, folders marked with '/', capped with a note and a total."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import PathOutsideWorkspace, ToolError
from engine.tools.base import ToolContext
from engine.tools.list_dir import ListTool
from tests.engine.tools.support import run_tool, with_limits

list_tool = ListTool()


async def test_list_shows_one_level_sorted_with_folders_marked(ctx: ToolContext, root: Path) -> None:
    (root / "src" / "deep").mkdir(parents=True)
    (root / "src" / "deep" / "x.py").write_text("")
    (root / "README.md").write_text("")
    (root / "b.txt").write_text("")
    (root / "Apple.txt").write_text("")
    output = await run_tool(list_tool, ctx)
    assert output.data == {"path": ".", "entries": ["Apple.txt", "b.txt", "README.md", "src/"], "total": 4}


async def test_list_skips_nothing(ctx: ToolContext, root: Path) -> None:
    (root / ".git").mkdir()
    (root / ".env").write_text("")
    (root / "node_modules").mkdir()
    (root / ".gitignore").write_text("node_modules/\n")
    output = await run_tool(list_tool, ctx, path=".")
    assert output.data["entries"] == [".env", ".git/", ".gitignore", "node_modules/"]


async def test_list_of_a_subfolder(ctx: ToolContext, root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("")
    output = await run_tool(list_tool, ctx, path="src")
    assert output.data == {"path": "src", "entries": ["main.py"], "total": 1}


async def test_list_caps_long_listings_and_says_how_many_there_were(ctx: ToolContext, root: Path) -> None:
    for n in range(12):
        (root / f"f{n:02}.txt").write_text("")
    output = await run_tool(list_tool, with_limits(ctx, max_results=5), path=".")
    assert output.data["entries"] == [f"f{n:02}.txt" for n in range(5)]
    assert output.data["total"] == 12
    assert output.data["note"] == "truncated: showing the first 5 of 12 entries"


async def test_list_of_a_file_suggests_read(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text("")
    with pytest.raises(ToolError, match="a.txt is a file, not a folder; use the read tool"):
        await run_tool(list_tool, ctx, path="a.txt")


async def test_list_of_a_missing_folder_is_a_clear_error(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="folder not found: nope"):
        await run_tool(list_tool, ctx, path="nope")


async def test_list_refuses_folders_outside_the_workspace(ctx: ToolContext) -> None:
    with pytest.raises(PathOutsideWorkspace):
        await run_tool(list_tool, ctx, path="..")
