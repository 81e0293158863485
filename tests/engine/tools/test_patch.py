"""SPEC 5 patch(patch) as a tool: all-or-nothing, the workspace guard, stale files, the diff, the preview."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.errors import PathOutsideWorkspace, ToolError
from engine.tools import patch_write
from engine.tools.base import ToolContext, ToolKind
from engine.tools.fileio import atomic_write
from engine.tools.patch import PatchTool
from engine.tools.registry import core_tools
from tests.engine.tools.support import run_tool

tool = PatchTool()


def _patch(*body: str) -> str:
    return "*** Begin Patch\n" + "".join(f"{line}\n" for line in body) + "*** End Patch\n"


def test_patch_is_an_edit_tool_whose_key_argument_lists_its_files() -> None:
    assert tool.kind is ToolKind.EDIT
    params = tool.parse({"patch": _patch("*** Update File: a.py", "*** Move to: b.py", "*** Add File: c.py", "+x")})
    assert tool.key_argument(params) == "a.py -> b.py, c.py"
    assert tool.key_argument(tool.parse({"patch": "nonsense"})) == "(unreadable patch)"


async def test_patch_returns_the_files_and_the_combined_diff(ctx: ToolContext, root: Path) -> None:
    (root / "a.py").write_text("x = 1\n")
    (root / "old.py").write_text("y = 2\n")
    output = await run_tool(
        tool,
        ctx,
        patch=_patch(
            "*** Update File: a.py", "-x = 1", "+x = 2",
            "*** Update File: old.py", "*** Move to: pkg/new.py", "-y = 2", "+y = 3",
            "*** Add File: b.py", "+z = 3",
        ),
    )
    assert output.data == {
        "files": [
            {"path": "a.py", "change": "updated"},
            {"path": "pkg/new.py", "change": "moved", "from": "old.py"},
            {"path": "b.py", "change": "added"},
        ]
    }
    assert output.diff == (
        "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
        "--- a/old.py\n+++ b/pkg/new.py\n@@ -1 +1 @@\n-y = 2\n+y = 3\n"
        "--- /dev/null\n+++ b/b.py\n@@ -0,0 +1 @@\n+z = 3\n"
    )


async def test_patch_preview_shows_the_diff_without_writing(ctx: ToolContext, root: Path) -> None:
    (root / "a.py").write_text("x = 1\n")
    diff = await tool.preview(tool.parse({"patch": _patch("*** Update File: a.py", "-x = 1", "+x = 2")}), ctx)
    assert diff == "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
    assert (root / "a.py").read_text() == "x = 1\n"


async def test_patch_lists_the_files_it_would_change_without_changing_them(ctx: ToolContext, root: Path) -> None:
    (root / "a.py").write_text("x = 1\n")
    (root / "gone.txt").write_text("bye\n")
    params = tool.parse(
        {"patch": _patch("*** Update File: a.py", "*** Move to: b.py", "-x = 1", "+x = 2", "*** Delete File: gone.txt")}
    )
    assert await tool.paths_to_change(params, ctx) == [root / "b.py", root / "a.py", root / "gone.txt"]
    assert sorted(path.name for path in root.iterdir()) == ["a.py", "gone.txt"]


async def test_patch_refuses_a_file_changed_on_disk_since_it_was_read(ctx: ToolContext, root: Path) -> None:
    (root / "a.py").write_text("x = 1\n")
    ctx.remember(root / "a.py")
    (root / "a.py").write_text("x = 1\n# the user's own line\n")
    with pytest.raises(ToolError, match="a.py changed on disk since it was last read .*; no file was changed"):
        await run_tool(tool, ctx, patch=_patch("*** Update File: a.py", "-x = 1", "+x = 2"))


async def test_patch_remembers_what_it_wrote_so_patches_can_chain(ctx: ToolContext, root: Path) -> None:
    (root / "a.py").write_text("x = 1\n")
    ctx.remember(root / "a.py")
    await run_tool(tool, ctx, patch=_patch("*** Update File: a.py", "-x = 1", "+x = 2"))
    await run_tool(tool, ctx, patch=_patch("*** Update File: a.py", "-x = 2", "+x = 3"))
    assert (root / "a.py").read_text() == "x = 3\n"
    await run_tool(tool, ctx, patch=_patch("*** Delete File: a.py"))
    assert root / "a.py" not in ctx.known_files


async def test_patch_refuses_paths_outside_the_workspace_and_under_coder(ctx: ToolContext, root: Path) -> None:
    with pytest.raises(PathOutsideWorkspace, match="outside the workspace"):
        await run_tool(tool, ctx, patch="--- /dev/null\n+++ b/../../etc/x\n@@ -0,0 +1 @@\n+x\n")
    with pytest.raises(PathOutsideWorkspace, match=r"\.coder/ holds coder's own state"):
        await run_tool(tool, ctx, patch=_patch("*** Add File: .coder/x.json", "+{}"))
    assert not (root / ".coder").exists()


async def test_a_write_that_fails_midway_restores_the_files_already_written(
    ctx: ToolContext, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "a.sh").write_text("echo a\n")
    os.chmod(root / "a.sh", 0o755)
    (root / "gone.txt").write_text("keep\n")
    written: list[str] = []

    def failing_write(path: Path, data: bytes, display: str) -> None:
        if display == "c.txt":
            raise ToolError(f"cannot write {display}: No space left on device")
        written.append(display)
        atomic_write(path, data, display)

    monkeypatch.setattr(patch_write, "atomic_write", failing_write)
    patch = _patch(
        "*** Update File: a.sh", "-echo a", "+echo A",
        "*** Add File: new/deep/b.txt", "+b",
        "*** Add File: c.txt", "+c",
        "*** Delete File: gone.txt",
    )
    with pytest.raises(ToolError, match="cannot write c.txt: No space left on device; the files written before it"):
        await run_tool(tool, ctx, patch=patch)
    assert written[:2] == ["a.sh", "new/deep/b.txt"]
    assert (root / "a.sh").read_text() == "echo a\n"
    assert (root / "a.sh").stat().st_mode & 0o777 == 0o755
    assert not (root / "new").exists()
    assert not (root / "c.txt").exists()
    assert (root / "gone.txt").read_text() == "keep\n"
    assert sorted(path.name for path in root.iterdir()) == ["a.sh", "gone.txt"]


async def test_deleting_a_file_not_read_in_this_session_asks_first(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    params = tool.parse({"patch": _patch("*** Delete File: a.txt")})
    assert await tool.approval_reasons(params, ctx) == ["deletes a.txt, which was not read in this session"]
    ctx.remember(root / "a.txt")
    assert await tool.approval_reasons(params, ctx) == []


async def test_adding_or_moving_onto_a_file_not_read_asks_first_as_an_overwrite(ctx: ToolContext, root: Path) -> None:
    (root / "keep.txt").write_text("old\n")
    (root / "src.txt").write_text("s\n")
    ctx.remember(root / "src.txt")
    add = tool.parse({"patch": _patch("*** Add File: keep.txt", "+new")})
    move = tool.parse({"patch": _patch("*** Update File: src.txt", "*** Move to: keep.txt", "-s", "+t")})
    reason = "overwrites keep.txt, which was not read in this session"
    assert await tool.approval_reasons(add, ctx) == [reason]
    assert await tool.approval_reasons(move, ctx) == [reason]
    ctx.remember(root / "keep.txt")
    assert await tool.approval_reasons(add, ctx) == []
    assert await tool.approval_reasons(move, ctx) == []


async def test_add_file_onto_an_existing_file_replaces_it(ctx: ToolContext, root: Path) -> None:
    (root / "keep.txt").write_text("old\n")
    ctx.remember(root / "keep.txt")
    output = await run_tool(tool, ctx, patch=_patch("*** Add File: keep.txt", "+new"))
    assert (root / "keep.txt").read_text() == "new\n"
    assert output.data == {"files": [{"path": "keep.txt", "change": "updated"}]}
    assert "-old\n+new\n" in output.diff


async def test_a_plain_diff_creating_an_existing_file_is_still_refused_as_git_apply_does(
    ctx: ToolContext, root: Path
) -> None:
    (root / "keep.txt").write_text("old\n")
    with pytest.raises(ToolError, match="cannot add keep.txt: it already exists"):
        await run_tool(tool, ctx, patch="--- /dev/null\n+++ b/keep.txt\n@@ -0,0 +1 @@\n+new\n")
    assert await tool.approval_reasons(tool.parse({"patch": "--- /dev/null\n+++ b/keep.txt\n@@ -0,0 +1 @@\n+n\n"}), ctx) == []


async def test_a_unified_diff_to_dev_null_deletes_the_file(ctx: ToolContext, root: Path) -> None:
    (root / "gone.py").write_text("a = 1\nb = 2\n")
    ctx.remember(root / "gone.py")
    output = await run_tool(tool, ctx, patch="--- a/gone.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a = 1\n-b = 2\n")
    assert not (root / "gone.py").exists()
    assert output.data == {"files": [{"path": "gone.py", "change": "deleted"}]}


async def test_a_unified_delete_whose_lines_are_not_the_file_is_refused(ctx: ToolContext, root: Path) -> None:
    (root / "gone.py").write_text("a = 1\nb = 2\n")
    ctx.remember(root / "gone.py")
    with pytest.raises(ToolError, match="cannot delete gone.py: the lines the patch removes are not the whole file"):
        await run_tool(tool, ctx, patch="--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-a = 1\n")
    with pytest.raises(ToolError, match="no file was changed"):
        await run_tool(tool, ctx, patch="--- a/gone.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a = 1\n-b = 3\n")
    assert (root / "gone.py").read_text() == "a = 1\nb = 2\n"


async def test_a_binary_file_can_be_deleted_but_not_patched(ctx: ToolContext, root: Path) -> None:
    (root / "blob.bin").write_bytes(b"\x00\x01")
    with pytest.raises(ToolError, match="blob.bin looks like a binary file"):
        await run_tool(tool, ctx, patch=_patch("*** Update File: blob.bin", "-x", "+y"))
    output = await run_tool(tool, ctx, patch=_patch("*** Delete File: blob.bin"))
    assert output.diff == "Binary files a/blob.bin and /dev/null differ\n"
    assert not (root / "blob.bin").exists()


async def test_a_latin1_file_stays_latin1(ctx: ToolContext, root: Path) -> None:
    (root / "old.txt").write_bytes("café\n".encode("latin-1"))
    await run_tool(tool, ctx, patch="--- a/old.txt\n+++ b/old.txt\n@@ -1 +1 @@\n-café\n+crème\n")
    assert (root / "old.txt").read_bytes() == "crème\n".encode("latin-1")


def test_patch_is_offered_to_the_model() -> None:
    assert "patch" in [t.name for t in core_tools()]
