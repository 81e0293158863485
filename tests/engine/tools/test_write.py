"""SPEC 5 write(path, content): atomic, creates folders, returns the diff; stale files refused; unread overwrites
ask for approval."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from engine.errors import PathOutsideWorkspace, ToolError
from engine.tools.base import ToolContext
from engine.tools.write import WriteTool
from tests.engine.tools.support import run_tool

write = WriteTool()


async def test_write_creates_a_file_and_its_folders(ctx: ToolContext, root: Path) -> None:
    output = await run_tool(write, ctx, path="src/pkg/new.py", content="x = 1\n")
    assert (root / "src" / "pkg" / "new.py").read_text() == "x = 1\n"
    assert output.data == {"path": "src/pkg/new.py", "bytes": 6, "created": True}
    assert output.diff == "--- /dev/null\n+++ b/src/pkg/new.py\n@@ -0,0 +1 @@\n+x = 1\n"


async def test_write_overwrite_returns_the_diff(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text("one\ntwo\n")
    ctx.remember(root / "a.txt")
    output = await run_tool(write, ctx, path="a.txt", content="one\n2\n")
    assert output.data["created"] is False
    assert output.diff == "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"


async def test_write_counts_bytes_as_utf8(ctx: ToolContext, root: Path) -> None:
    output = await run_tool(write, ctx, path="u.txt", content="é☃")
    assert output.data["bytes"] == 5
    assert (root / "u.txt").read_bytes() == "é☃".encode()


async def test_write_keeps_the_file_mode(ctx: ToolContext, root: Path) -> None:
    script = root / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    ctx.remember(script)
    await run_tool(write, ctx, path="run.sh", content="#!/bin/sh\necho hi\n")
    assert stat.S_IMODE(script.stat().st_mode) == 0o755


async def test_write_leaves_no_temp_file_behind(ctx: ToolContext, root: Path) -> None:
    await run_tool(write, ctx, path="a.txt", content="x")
    assert os.listdir(root) == ["a.txt"]


async def test_write_remembers_what_it_wrote(ctx: ToolContext, root: Path) -> None:
    await run_tool(write, ctx, path="a.txt", content="x")
    record = ctx.known_files[root / "a.txt"]
    assert record.size == 1
    await run_tool(write, ctx, path="a.txt", content="second write of my own file")


async def test_write_refuses_a_file_changed_on_disk_since_read(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text("original\n")
    ctx.remember(root / "a.txt")
    (root / "a.txt").write_text("edited by the user meanwhile\n")
    with pytest.raises(ToolError, match="a.txt changed on disk since it was last read.*read it again"):
        await run_tool(write, ctx, path="a.txt", content="model's version\n")
    assert (root / "a.txt").read_text() == "edited by the user meanwhile\n"


async def test_write_over_an_unread_file_asks_for_approval(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text("precious\n")
    params = write.parse({"path": "a.txt", "content": "x"})
    assert await write.approval_reasons(params, ctx) == ["overwrites a.txt, which was not read in this session"]
    ctx.remember(root / "a.txt")
    assert await write.approval_reasons(params, ctx) == []


async def test_write_of_a_new_file_needs_no_approval_of_its_own(ctx: ToolContext) -> None:
    params = write.parse({"path": "new.txt", "content": "x"})
    assert await write.approval_reasons(params, ctx) == []


async def test_write_preview_shows_the_diff_without_writing(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text("old\n")
    diff = await write.preview(write.parse({"path": "a.txt", "content": "new\n"}), ctx)
    assert diff == "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n"
    assert (root / "a.txt").read_text() == "old\n"
    assert (root / "a.txt") not in ctx.known_files


async def test_write_refuses_the_coder_folder(ctx: ToolContext, root: Path) -> None:
    (root / ".coder").mkdir()
    with pytest.raises(PathOutsideWorkspace, match=r"\.coder"):
        await run_tool(write, ctx, path=".coder/config.json", content="{}")
    assert not (root / ".coder" / "config.json").exists()


async def test_write_refuses_paths_outside_the_workspace(ctx: ToolContext, tmp_path: Path) -> None:
    with pytest.raises(PathOutsideWorkspace):
        await run_tool(write, ctx, path="../escape.txt", content="x")
    assert not (tmp_path / "escape.txt").exists()


async def test_write_through_a_symlink_inside_replaces_its_target(ctx: ToolContext, root: Path) -> None:
    (root / "real.txt").write_text("old\n")
    (root / "alias.txt").symlink_to(root / "real.txt")
    await run_tool(write, ctx, path="alias.txt", content="new\n")
    assert (root / "alias.txt").is_symlink()
    assert (root / "real.txt").read_text() == "new\n"


async def test_write_refuses_a_folder(ctx: ToolContext, root: Path) -> None:
    (root / "src").mkdir()
    with pytest.raises(ToolError, match="src is a directory"):
        await run_tool(write, ctx, path="src", content="x")


async def test_write_over_a_binary_file_says_so_in_the_diff(ctx: ToolContext, root: Path) -> None:
    (root / "blob.bin").write_bytes(b"\0\1\2")
    output = await run_tool(write, ctx, path="blob.bin", content="text now\n")
    assert output.diff == "Binary files a/blob.bin and b/blob.bin differ\n"
