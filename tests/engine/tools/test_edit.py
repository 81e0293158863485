"""SPEC 5 edit(path, old_string, new_string, replace_all?): exact, unique matches; helpful errors; line endings,
BOM and encoding kept; atomic; returns the diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import PathOutsideWorkspace, ToolError
from engine.tools.base import ToolContext
from engine.tools.edit import EditTool, find_matches
from tests.engine.tools.support import run_tool

edit = EditTool()

SOURCE = "def greet(name):\n    print('hello', name)\n\n\ndef leave(name):\n    print('bye', name)\n"


@pytest.fixture
def source(root: Path) -> Path:
    path = root / "app.py"
    path.write_text(SOURCE)
    return path


async def test_edit_replaces_a_unique_match(ctx: ToolContext, source: Path) -> None:
    output = await run_tool(edit, ctx, path="app.py", old_string="print('bye', name)", new_string="print('ciao')")
    assert source.read_text() == SOURCE.replace("print('bye', name)", "print('ciao')")
    assert output.data == {"path": "app.py", "replacements": 1, "created": False}
    assert "-    print('bye', name)\n+    print('ciao')\n" in output.diff
    assert output.diff.startswith("--- a/app.py\n+++ b/app.py\n")


async def test_edit_refuses_an_ambiguous_match(ctx: ToolContext, source: Path) -> None:
    with pytest.raises(ToolError, match=r"matches 2 times in app.py \(lines 1, 5\).*replace_all"):
        await run_tool(edit, ctx, path="app.py", old_string="(name):", new_string="(who):")
    assert source.read_text() == SOURCE


async def test_edit_replace_all_changes_every_occurrence(ctx: ToolContext, source: Path) -> None:
    output = await run_tool(edit, ctx, path="app.py", old_string="name", new_string="who", replace_all=True)
    assert output.data["replacements"] == 4
    assert "name" not in source.read_text()


async def test_edit_not_found_shows_the_closest_lines(ctx: ToolContext, source: Path) -> None:
    with pytest.raises(ToolError) as error:
        await run_tool(edit, ctx, path="app.py", old_string="  print('helo', name)", new_string="x")
    message = str(error.value)
    assert message.startswith("old_string was not found in app.py. The closest lines are:")
    assert "     2\t    print('hello', name)" in message


async def test_edit_not_found_with_nothing_close_says_so(ctx: ToolContext, source: Path) -> None:
    with pytest.raises(ToolError, match="not found in app.py, nor anything close"):
        await run_tool(edit, ctx, path="app.py", old_string="zzzzzzzzzzzz", new_string="x")


async def test_edit_refuses_identical_strings(ctx: ToolContext, source: Path) -> None:
    with pytest.raises(ToolError, match="identical"):
        await run_tool(edit, ctx, path="app.py", old_string="greet", new_string="greet")


async def test_edit_with_empty_old_string_creates_a_missing_file(ctx: ToolContext, root: Path) -> None:
    output = await run_tool(edit, ctx, path="pkg/new.py", old_string="", new_string="VALUE = 1\n")
    assert (root / "pkg" / "new.py").read_text() == "VALUE = 1\n"
    assert output.data["created"] is True
    assert output.diff.startswith("--- /dev/null\n+++ b/pkg/new.py\n")


async def test_edit_with_empty_old_string_refuses_a_non_empty_file(ctx: ToolContext, source: Path) -> None:
    with pytest.raises(ToolError, match="old_string is empty but app.py is not"):
        await run_tool(edit, ctx, path="app.py", old_string="", new_string="x")


async def test_edit_of_a_missing_file_is_a_clear_error(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="file not found: nope.py"):
        await run_tool(edit, ctx, path="nope.py", old_string="a", new_string="b")


async def test_edit_preserves_crlf_line_endings(ctx: ToolContext, root: Path) -> None:
    (root / "win.txt").write_bytes(b"first\r\nsecond\r\nthird\r\n")
    await run_tool(edit, ctx, path="win.txt", old_string="second\nthird", new_string="2nd\nthird\nfourth")
    assert (root / "win.txt").read_bytes() == b"first\r\n2nd\r\nthird\r\nfourth\r\n"


async def test_edit_matches_crlf_old_string_in_an_lf_file(ctx: ToolContext, source: Path) -> None:
    await run_tool(edit, ctx, path="app.py", old_string="\n\n\ndef leave", new_string="\n\n\ndef depart")
    await run_tool(edit, ctx, path="app.py", old_string="def depart(name):\r\n", new_string="def go(name):\r\n")
    assert b"\r" not in source.read_bytes()
    assert "def go(name):\n" in source.read_text()


async def test_edit_preserves_a_utf8_bom(ctx: ToolContext, root: Path) -> None:
    (root / "bom.cs").write_bytes(b"\xef\xbb\xbfclass A {}\n")
    await run_tool(edit, ctx, path="bom.cs", old_string="A", new_string="B")
    assert (root / "bom.cs").read_bytes() == b"\xef\xbb\xbfclass B {}\n"


async def test_edit_keeps_a_latin1_file_latin1(ctx: ToolContext, root: Path) -> None:
    (root / "old.txt").write_bytes("café crème\n".encode("latin-1"))
    await run_tool(edit, ctx, path="old.txt", old_string="crème", new_string="brûlée")
    assert (root / "old.txt").read_bytes() == "café brûlée\n".encode("latin-1")


async def test_edit_refuses_a_binary_file(ctx: ToolContext, root: Path) -> None:
    (root / "blob.bin").write_bytes(b"abc\0def")
    with pytest.raises(ToolError, match="blob.bin looks like a binary file"):
        await run_tool(edit, ctx, path="blob.bin", old_string="abc", new_string="x")


async def test_edit_refuses_a_file_changed_on_disk_since_read(ctx: ToolContext, source: Path) -> None:
    ctx.remember(source)
    source.write_text(SOURCE + "# added by the user\n")
    with pytest.raises(ToolError, match="app.py changed on disk since it was last read"):
        await run_tool(edit, ctx, path="app.py", old_string="greet", new_string="hi")


async def test_edit_remembers_the_file_so_edits_can_chain(ctx: ToolContext, source: Path) -> None:
    ctx.remember(source)
    await run_tool(edit, ctx, path="app.py", old_string="greet", new_string="hi")
    await run_tool(edit, ctx, path="app.py", old_string="leave", new_string="bye")
    assert "def hi(name)" in source.read_text() and "def bye(name)" in source.read_text()


async def test_edit_preview_shows_the_diff_without_writing(ctx: ToolContext, source: Path) -> None:
    diff = await edit.preview(edit.parse({"path": "app.py", "old_string": "greet", "new_string": "hi"}), ctx)
    assert "-def greet(name):\n+def hi(name):\n" in diff
    assert source.read_text() == SOURCE


async def test_edit_refuses_the_coder_folder(ctx: ToolContext, root: Path) -> None:
    (root / ".coder").mkdir()
    (root / ".coder" / "config.json").write_text('{"model": "a"}')
    with pytest.raises(PathOutsideWorkspace):
        await run_tool(edit, ctx, path=".coder/config.json", old_string='"a"', new_string='"b"')


def test_find_matches_returns_every_non_overlapping_span() -> None:
    assert find_matches("aaaa", "aa") == [(0, 2), (2, 4)]
    assert find_matches("abc", "x") == []
