"""SPEC 5 read(path, offset?, limit?): numbered lines, windows of large files, binary files and folders refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import PathOutsideWorkspace, ToolError
from engine.tools.base import ToolContext
from engine.tools.read import ReadTool
from tests.engine.tools.support import run_tool, with_limits

read = ReadTool()


def _lines(count: int) -> str:
    return "".join(f"line {n}\n" for n in range(1, count + 1))


async def test_read_numbers_lines_like_cat_n(ctx: ToolContext, root: Path) -> None:
    (root / "a.py").write_text("import os\n\nprint(os.getcwd())\n")
    output = await run_tool(read, ctx, path="a.py")
    assert output.data["content"] == "     1\timport os\n     2\t\n     3\tprint(os.getcwd())\n"
    assert output.data["total_lines"] == 3
    assert "note" not in output.data


async def test_read_offset_and_limit_give_a_window(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text(_lines(10))
    output = await run_tool(read, ctx, path="a.txt", offset=4, limit=3)
    assert output.data["content"] == "     4\tline 4\n     5\tline 5\n     6\tline 6\n"
    assert (output.data["start_line"], output.data["end_line"]) == (4, 6)
    assert output.data["note"] == "truncated: 4 more lines, use offset=7 to read on"


async def test_read_default_limit_cuts_a_long_file_with_a_note(ctx: ToolContext, root: Path) -> None:
    (root / "big.txt").write_text(_lines(25))
    output = await run_tool(read, with_limits(ctx, read_max_lines=10), path="big.txt")
    assert output.data["content"].count("\n") == 10
    assert output.data["note"] == "truncated: 15 more lines, use offset=11 to read on"
    assert output.data["total_lines"] == 25


async def test_read_limit_never_exceeds_the_configured_maximum(ctx: ToolContext, root: Path) -> None:
    (root / "big.txt").write_text(_lines(25))
    output = await run_tool(read, with_limits(ctx, read_max_lines=10), path="big.txt", limit=1000)
    assert output.data["end_line"] == 10


async def test_read_last_window_has_no_truncated_note(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text(_lines(10))
    output = await run_tool(read, ctx, path="a.txt", offset=8)
    assert output.data["content"].splitlines()[-1] == "    10\tline 10"
    assert "note" not in output.data


async def test_read_cuts_over_long_lines_with_a_marker(ctx: ToolContext, root: Path) -> None:
    (root / "min.js").write_text("x" * 5000 + "\nshort\n")
    output = await run_tool(read, with_limits(ctx, read_max_line_chars=100), path="min.js")
    first, second = output.data["content"].splitlines()
    assert first == "     1\t" + "x" * 100 + " [... line cut at 100 characters]"
    assert second == "     2\tshort"
    assert output.data["total_lines"] == 2


async def test_read_cut_does_not_garble_a_multibyte_character(ctx: ToolContext, root: Path) -> None:
    (root / "wide.txt").write_text("é" * 500 + "\n")
    output = await run_tool(read, with_limits(ctx, read_max_line_chars=10), path="wide.txt")
    assert output.data["content"] == "     1\t" + "é" * 10 + " [... line cut at 10 characters]\n"


async def test_read_refuses_binary_files(ctx: ToolContext, root: Path) -> None:
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    with pytest.raises(ToolError, match="logo.png looks like a binary file"):
        await run_tool(read, ctx, path="logo.png")


async def test_read_refuses_a_folder_and_suggests_list(ctx: ToolContext, root: Path) -> None:
    (root / "src").mkdir()
    with pytest.raises(ToolError, match="src is a directory; use the list tool"):
        await run_tool(read, ctx, path="src")


async def test_read_missing_file_is_a_clear_error(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="file not found: nope.txt"):
        await run_tool(read, ctx, path="nope.txt")


async def test_read_offset_past_the_end_is_refused(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text(_lines(3))
    with pytest.raises(ToolError, match="offset 9 is past the end of a.txt, which has 3 lines"):
        await run_tool(read, ctx, path="a.txt", offset=9)


async def test_read_empty_file_says_so(ctx: ToolContext, root: Path) -> None:
    (root / "empty.txt").write_text("")
    output = await run_tool(read, ctx, path="empty.txt")
    assert output.data["content"] == ""
    assert output.data["note"] == "the file is empty"


async def test_read_decodes_utf8_with_bom_and_crlf(ctx: ToolContext, root: Path) -> None:
    (root / "win.txt").write_bytes(b"\xef\xbb\xbfh\xc3\xa9llo\r\nworld\r\n")
    output = await run_tool(read, ctx, path="win.txt")
    assert output.data["content"] == "     1\théllo\n     2\tworld\n"


async def test_read_falls_back_to_latin1(ctx: ToolContext, root: Path) -> None:
    (root / "old.txt").write_bytes("café crème\n".encode("latin-1"))
    output = await run_tool(read, ctx, path="old.txt")
    assert output.data["content"] == "     1\tcafé crème\n"


async def test_read_counts_a_last_line_without_newline(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text("one\ntwo")
    output = await run_tool(read, ctx, path="a.txt")
    assert output.data["total_lines"] == 2
    assert output.data["content"] == "     1\tone\n     2\ttwo\n"


async def test_read_remembers_the_file_for_later_writes(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text("x\n")
    await run_tool(read, ctx, path="a.txt")
    assert (root / "a.txt") in ctx.known_files


async def test_read_refuses_paths_outside_the_workspace(ctx: ToolContext) -> None:
    with pytest.raises(PathOutsideWorkspace):
        await run_tool(read, ctx, path="../outside.txt")


async def test_read_of_a_large_file_returns_the_requested_window(ctx: ToolContext, root: Path) -> None:
    (root / "huge.log").write_text(_lines(200_000))
    output = await run_tool(read, ctx, path="huge.log", offset=199_999)
    assert output.data["content"] == "199999\tline 199999\n200000\tline 200000\n"
    assert output.data["total_lines"] == 200_000


def test_read_schema_describes_every_parameter() -> None:
    properties = read.definition().parameters["properties"]
    assert set(properties) == {"path", "offset", "limit"}
    assert all(spec.get("description") for spec in properties.values())


async def test_read_numbers_lines_the_same_far_into_a_long_file(ctx: ToolContext, root: Path) -> None:
    (root / "long.txt").write_text(_lines(20_010))
    for offset in (19_995, 20_001):
        data = (await run_tool(ReadTool(), ctx, path="long.txt", offset=offset, limit=10)).data
        assert data["content"] == "".join(f"{n:>6}\tline {n}\n" for n in range(offset, offset + 10))
