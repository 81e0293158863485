"""SPEC 5, per-hunk approval: write, edit and patch apply only the hunks of their previewed diff the user kept
(numbered in the preview's order), name each dropped hunk with its text, and a patch stays all-or-nothing for what
is kept."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from engine.errors import ToolError
from engine.text_diff import HunkChoice, diff_hunks, unified_diff
from engine.tools import patch_write
from engine.tools.base import ToolContext
from engine.tools.edit import EditTool
from engine.tools.patch import PatchTool
from engine.tools.write import WriteTool
from tests.engine.tools.support import run_tool

OLD = "".join(f"line {n}\n" for n in range(1, 41))
# Three hunks far enough apart: line 2 changed, line 20 removed, a line added after 35.
NEW = OLD.replace("line 2\n", "line two\n").replace("line 20\n", "").replace("line 35\n", "line 35\nadded\n")


def kept(ctx: ToolContext, *hunks: int) -> ToolContext:
    return replace(ctx, kept_hunks=frozenset(hunks))


def test_the_preview_has_three_hunks_numbered_in_order() -> None:
    hunks = diff_hunks(unified_diff(OLD, NEW, "f.txt"))
    assert [hunk.splitlines()[0] for hunk in hunks] == ["@@ -1,5 +1,5 @@", "@@ -17,7 +17,6 @@", "@@ -33,6 +32,7 @@"]
    assert "+line two" in hunks[0] and "-line 20" in hunks[1] and "+added" in hunks[2]


@pytest.mark.parametrize("keep", [(), (0,), (1,), (2,), (0, 2), (1, 2), (0, 1, 2)])
def test_only_the_kept_hunks_are_applied(keep: tuple[int, ...]) -> None:
    choice = HunkChoice(frozenset(keep))
    result = choice.apply(OLD, NEW, "f.txt")
    assert ("line two" in result) is (0 in keep)
    assert ("line 20\n" not in result) is (1 in keep)
    assert ("added" in result) is (2 in keep)
    assert [d["hunk"] for d in choice.dropped] == [str(n) for n in range(3) if n not in keep]


async def test_write_applies_the_kept_hunks_and_names_the_dropped_ones(ctx: ToolContext, root: Path) -> None:
    (root / "f.txt").write_text(OLD)
    output = await run_tool(WriteTool(), kept(ctx, 0, 2), path="f.txt", content=NEW)
    expected = OLD.replace("line 2\n", "line two\n").replace("line 35\n", "line 35\nadded\n")
    assert (root / "f.txt").read_text() == expected
    assert output.data["dropped_hunks"] == [
        {"file": "f.txt", "hunk": "1", "text": diff_hunks(unified_diff(OLD, NEW, "f.txt"))[1]}
    ]
    assert "-line 20" not in (output.diff or "")  # the diff reported is the one made


async def test_write_keeps_the_models_crlf_line_endings_for_what_is_kept(ctx: ToolContext, root: Path) -> None:
    (root / "f.txt").write_bytes(OLD.replace("\n", "\r\n").encode())
    await run_tool(WriteTool(), kept(ctx, 1), path="f.txt", content=NEW.replace("\n", "\r\n"))
    assert (root / "f.txt").read_bytes() == OLD.replace("line 20\n", "").replace("\n", "\r\n").encode()


async def test_a_dropped_creation_creates_nothing(ctx: ToolContext, root: Path) -> None:
    with pytest.raises(ToolError, match="every hunk"):
        await run_tool(WriteTool(), kept(ctx), path="new.txt", content="x\n")
    assert not (root / "new.txt").exists()


async def test_edit_applies_the_kept_hunks(ctx: ToolContext, root: Path) -> None:
    (root / "f.txt").write_text(OLD)
    output = await run_tool(
        EditTool(), kept(ctx, 1), path="f.txt", old_string=OLD, new_string=NEW
    )
    assert (root / "f.txt").read_text() == OLD.replace("line 20\n", "")
    assert [d["hunk"] for d in output.data["dropped_hunks"]] == ["0", "2"]
    assert "+line two" in output.data["dropped_hunks"][0]["text"]


async def test_edit_without_a_choice_applies_everything(ctx: ToolContext, root: Path) -> None:
    (root / "f.txt").write_text(OLD)
    output = await run_tool(EditTool(), ctx, path="f.txt", old_string=OLD, new_string=NEW)
    assert (root / "f.txt").read_text() == NEW and "dropped_hunks" not in output.data


def _patch(*body: str) -> str:
    return "*** Begin Patch\n" + "".join(f"{line}\n" for line in body) + "*** End Patch\n"


PATCH = _patch(
    "*** Update File: a.txt", "@@", " line 1", "-line 2", "+line two", " line 3",
    "@@", " line 34", " line 35", "+added", " line 36",
    "*** Add File: new.txt", "+fresh",
    "*** Delete File: gone.txt",
)


async def test_patch_numbers_hunks_across_files_and_applies_the_kept_ones(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text(OLD)
    (root / "gone.txt").write_text("bye\n")
    preview = await PatchTool().preview(PatchTool().parse({"patch": PATCH}), ctx)
    assert preview is not None and len(diff_hunks(preview)) == 4  # a.txt: 2, new.txt: 1, gone.txt: 1
    output = await run_tool(PatchTool(), kept(ctx, 1, 2), patch=PATCH)
    assert (root / "a.txt").read_text() == OLD.replace("line 35\n", "line 35\nadded\n")
    assert (root / "new.txt").read_text() == "fresh\n"
    assert (root / "gone.txt").read_text() == "bye\n"  # its deletion was dropped
    assert [(d["file"], d["hunk"]) for d in output.data["dropped_hunks"]] == [("a.txt", "0"), ("gone.txt", "3")]
    assert [f["path"] for f in output.data["files"]] == ["a.txt", "new.txt"]


async def test_a_patch_stays_all_or_nothing_for_the_kept_hunks(
    ctx: ToolContext, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "a.txt").write_text(OLD)
    (root / "gone.txt").write_text("bye\n")
    real = patch_write.atomic_write

    def failing(path: Path, payload: bytes, display: str) -> None:
        if path.name == "new.txt":
            raise ToolError("disk full")
        real(path, payload, display)

    monkeypatch.setattr(patch_write, "atomic_write", failing)
    with pytest.raises(ToolError, match="disk full"):
        await run_tool(PatchTool(), kept(ctx, 1, 2), patch=PATCH)
    assert (root / "a.txt").read_text() == OLD and not (root / "new.txt").exists()


async def test_a_kept_deletion_deletes_and_a_dropped_creation_creates_nothing(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text(OLD)
    (root / "gone.txt").write_text("bye\n")
    output = await run_tool(PatchTool(), kept(ctx, 0, 1, 3), patch=PATCH)
    assert not (root / "gone.txt").exists() and not (root / "new.txt").exists()
    assert [(d["file"], d["hunk"]) for d in output.data["dropped_hunks"]] == [("new.txt", "2")]


def test_a_change_without_hunks_is_applied_whole() -> None:
    choice = HunkChoice(frozenset())
    assert choice.apply("", None, "empty.txt") is None  # deleting an empty file: its diff has no hunk
    assert choice.apply(None, "", "empty.txt") == ""
    assert choice.dropped == []
