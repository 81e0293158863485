"""Findings 6 and 7 against the file tools (data/file_tools.tsv, one case a line): FIFOs, sockets and devices are
refused before they are opened (no call hangs, none grows without end), glob, grep and list never show `.coder/`,
and a file name holding a newline comes back as one name. glob and grep run with ripgrep and with their fallback."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.errors import EngineError
from engine.tools.base import ToolContext
from engine.tools.guard import Workspace
from engine.tools.registry import core_tools
from tests.engine.tools.support import run_tool, use_search_backend
from tests.security.conftest import snapshot

CORPUS = Path(__file__).parent / "data" / "file_tools.tsv"
TOOLS = {tool.name: tool for tool in core_tools()}
# A hang guard only: every case answers at once; a FIFO opened for reading would block forever.
HANG_GUARD_S = 20


def _cases() -> list[pytest.ParameterSet]:
    cases = []
    for number, line in enumerate(CORPUS.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip() and not line.startswith("#"):
            tool, arguments, expected = line.split("\t")
            cases.append(pytest.param(tool, json.loads(arguments), expected, id=f"{number}:{tool}:{arguments[:50]}"))
    return cases


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    # A sibling whose name starts with the workspace's: a string-prefix "inside" check would let it in.
    (tmp_path / "ws-evil").mkdir()
    (tmp_path / "ws-evil" / "secret.txt").write_text("SECRETSTATE evil\n")
    (root / "evil_link").symlink_to("../ws-evil")
    (root / "notes.txt").write_text("notes\n")
    (root / "src" / "main.py").write_text("x = 1\n")
    (root / ".coder" / "sessions").mkdir(parents=True)
    (root / ".coder" / "coder.db").write_text("SECRETSTATE x\n")
    (root / ".coder" / "sessions" / "s.json").write_text('{"x": "SECRETSTATE"}\n')
    os.mkfifo(root / "pipe")
    (root / "link_pipe").symlink_to("pipe")
    (root / "coder_link").symlink_to(".coder")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(root / "sock"))
    try:
        os.mknod(root / "zero", stat.S_IFCHR | 0o666, os.makedev(1, 5))
    except OSError:
        pass  # not allowed here (no CAP_MKNOD): the device lines are skipped
    try:
        yield root
    finally:
        server.close()


@pytest.mark.parametrize("backend", ["rg", "python"])
@pytest.mark.parametrize(("tool", "arguments", "expected"), _cases())
async def test_file_tool_case(
    hostile: Path, monkeypatch: pytest.MonkeyPatch, backend: str, tool: str, arguments: dict, expected: str
) -> None:
    if backend == "python" and tool not in ("glob", "grep"):
        pytest.skip("only glob and grep have a second backend")
    if '"zero"' in json.dumps(arguments) and not (hostile / "zero").exists():
        pytest.skip("this system does not let tests make a device node")
    use_search_backend(monkeypatch, backend)
    before = snapshot(hostile / ".coder")
    ctx = ToolContext(workspace=Workspace(hostile))
    call = run_tool(TOOLS[tool], ctx, **arguments)
    if expected.startswith("refused "):
        with pytest.raises(EngineError) as refused:
            await asyncio.wait_for(call, HANG_GUARD_S)
        assert expected.removeprefix("refused ") in str(refused.value)
    else:
        assert expected == "ok"
        output = await asyncio.wait_for(call, HANG_GUARD_S)
        shown = json.dumps([output.data.get(key) for key in ("files", "matches", "entries")])
        assert "SECRETSTATE" not in shown and ".coder" not in shown
        assert "pipe" not in json.dumps(output.data.get("matches", []))
    assert snapshot(hostile / ".coder") == before
    assert stat.S_ISFIFO(os.lstat(hostile / "pipe").st_mode)


@pytest.mark.parametrize("backend", ["rg", "python"])
async def test_names_with_newlines_survive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: str) -> None:
    use_search_backend(monkeypatch, backend)
    (tmp_path / "two\nlines.txt").write_text("needle\n")
    (tmp_path / "plain.txt").write_text("needle\n")
    ctx = ToolContext(workspace=Workspace(tmp_path))
    found = await run_tool(TOOLS["glob"], ctx, pattern="*.txt")
    assert sorted(found.data["files"]) == ["plain.txt", "two\nlines.txt"]
    matches = await run_tool(TOOLS["grep"], ctx, pattern="needle")
    assert sorted(m["file"] for m in matches.data["matches"]) == ["plain.txt", "two\nlines.txt"]
    listed = await run_tool(TOOLS["list"], ctx, path=".")
    assert "two\nlines.txt" in listed.data["entries"]
    read = await run_tool(TOOLS["read"], ctx, path="two\nlines.txt")
    assert "needle" in read.data["content"]


async def test_fifo_swapped_in_after_the_check_does_not_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The race: a regular file when checked, a FIFO when opened. The open does not block, and is refused."""
    import engine.tools.fileio as fileio

    target = tmp_path / "swapped"
    target.write_text("text\n")
    real_check = fileio.refuse_special_file

    def check_then_swap(path: Path, display: str) -> None:
        real_check(path, display)
        path.unlink()
        os.mkfifo(path)

    monkeypatch.setattr(fileio, "refuse_special_file", check_then_swap)
    ctx = ToolContext(workspace=Workspace(tmp_path))
    with pytest.raises(EngineError, match="FIFO"):
        await asyncio.wait_for(run_tool(TOOLS["read"], ctx, path="swapped"), HANG_GUARD_S)
