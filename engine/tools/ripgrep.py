"""Running ``rg`` for glob and grep: output streamed line by line, the process killed when the caller has seen
enough or the call is cancelled, stderr kept for the error message.

Lines are split by hand rather than with ``StreamReader.readline``, whose 64 KiB limit a single ``--json`` match
in a minified file easily exceeds.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

_CHUNK = 1 << 16
_STDERR_CAP = 8192

# Hidden files are searched like any other; git's own folder never is.
BASE_ARGS: tuple[str, ...] = ("--hidden", "--glob", "!.git")


def find_ripgrep() -> str | None:
    """The ``rg`` executable, if any; glob and grep fall back to pure Python only when this is None."""
    return shutil.which("rg")


@dataclass(frozen=True)
class RipgrepExit:
    """How a run ended: rg's exit code (None when we stopped it early) and the head of its stderr."""

    code: int | None
    stderr: str


async def run_ripgrep(
    executable: str, args: Sequence[str], cwd: Path, on_line: Callable[[bytes], bool]
) -> RipgrepExit:
    """Runs ``rg`` and hands each stdout line (without its newline) to ``on_line``; it returns False to stop."""
    process = await asyncio.create_subprocess_exec(
        executable,
        *args,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    stderr_task = asyncio.create_task(_read_head(process.stderr, _STDERR_CAP))
    try:
        stopped = not await _feed_lines(process.stdout, on_line)
        if stopped:
            process.kill()
        code = await process.wait()
        stderr = await stderr_task
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        stderr_task.cancel()
    return RipgrepExit(code=None if stopped else code, stderr=stderr.decode("utf-8", errors="replace").strip())


async def _feed_lines(stream: asyncio.StreamReader, on_line: Callable[[bytes], bool]) -> bool:
    """Feeds every line to ``on_line``; False as soon as it asks to stop."""
    buffer = bytearray()
    while chunk := await stream.read(_CHUNK):
        searched = len(buffer)
        buffer.extend(chunk)
        consumed = 0
        end = buffer.find(b"\n", searched)
        while end != -1:
            if not on_line(bytes(buffer[consumed:end])):
                return False
            consumed = end + 1
            end = buffer.find(b"\n", consumed)
        del buffer[:consumed]
    return not buffer or on_line(bytes(buffer))


async def _read_head(stream: asyncio.StreamReader, cap: int) -> bytes:
    """Reads the stream to its end (so rg never blocks on a full pipe) and keeps its first ``cap`` bytes."""
    head = b""
    while chunk := await stream.read(_CHUNK):
        if len(head) < cap:
            head += chunk[: cap - len(head)]
    return head
