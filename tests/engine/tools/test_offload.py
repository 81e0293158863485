"""File work runs on the event loop only for a small regular file; anything larger, or anything else, in a thread
(issue 14: a thread hop per small read cost more than the read)."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest

from engine.errors import ToolError
from engine.tools.base import ToolContext
from engine.tools.offload import INLINE_MAX_BYTES, run_file_work
from engine.tools.read import ReadTool
from tests.engine.tools.support import run_tool


def reading_thread(path: Path) -> str:
    path.read_bytes()
    return threading.current_thread().name


async def test_a_small_file_is_read_on_the_loop(tmp_path: Path) -> None:
    small = tmp_path / "small.txt"
    small.write_bytes(b"x" * INLINE_MAX_BYTES)
    assert await run_file_work(small, lambda: reading_thread(small)) == threading.current_thread().name


async def test_a_large_file_is_read_in_a_thread(tmp_path: Path) -> None:
    large = tmp_path / "large.txt"
    large.write_bytes(b"x" * (INLINE_MAX_BYTES + 1))
    assert await run_file_work(large, lambda: reading_thread(large)) != threading.current_thread().name


@pytest.mark.parametrize("kind", ["folder", "missing", "fifo"])
async def test_anything_but_a_regular_file_goes_to_the_thread(tmp_path: Path, kind: str) -> None:
    path = tmp_path / kind
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    assert await run_file_work(path, lambda: threading.current_thread().name) != threading.current_thread().name


async def test_read_still_refuses_a_fifo_without_blocking(ctx: ToolContext, root: Path) -> None:
    os.mkfifo(root / "pipe")
    with pytest.raises(ToolError, match="FIFO"):
        await asyncio.wait_for(run_tool(ReadTool(), ctx, path="pipe"), timeout=10)
