"""Running ``rg`` for glob and grep: output streamed line by line, the process killed when the call is cancelled,
stderr kept for the error message.

Lines are split by hand rather than with ``StreamReader.readline``, whose 64 KiB limit a single ``--json`` match
in a minified file easily exceeds.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sysconfig
from collections.abc import Callable, Sequence
from pathlib import Path

from engine.record import record
from engine.tools.opened_where_checked import open_checked

_CHUNK = 1 << 16
_STDERR_CAP = 8192

# Hidden files are searched like any other; git's own folder never is, nor coder-tui's own data (the session files
# would echo earlier tool output back into every search).
SKIPPED_FOLDERS: tuple[str, ...] = (".git", ".coder")


def search_args(*user_globs: str) -> list[str]:
    """``--hidden``, the caller's globs, then the skipped folders: rg lets a later glob win over an earlier one, so
    the exclusions come last and a pattern such as `.coder/**` or `**/*` cannot bring them back (SPEC 13)."""
    args = ["--hidden"]
    for glob in user_globs:
        args += ["--glob", glob]
    for name in SKIPPED_FOLDERS:
        args += ["--glob", f"!{name}"]
    return args


def find_ripgrep() -> str | None:
    """The ``rg`` executable, if any; glob and grep fall back to pure Python only when this is None.

    The ``ripgrep`` wheel puts ``rg`` beside this interpreter's scripts, which need not be on PATH (a virtualenv
    that is not activated), and calling it there also skips wrapper shims (pyenv's costs ~80 ms a call).
    """
    beside = Path(sysconfig.get_path("scripts")) / "rg"
    if os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("rg")


@record
class RipgrepExit:
    """How a run ended: rg's exit code (0 found, 1 nothing found, 2 error) and the head of its stderr."""

    code: int
    stderr: str


async def run_ripgrep(
    executable: str,
    args: Sequence[str],
    cwd: Path,
    on_line: Callable[[bytes], None],
    separator: bytes = b"\n",
    *,
    stdin_file: Path | None = None,
) -> RipgrepExit:
    """Runs ``rg`` in the real folder ``cwd`` and hands each stdout record (a line, or with ``--null`` a NUL-ended
    name: file names may hold newlines) without its separator to ``on_line``. ``stdin_file`` (a real file the guard
    checked) is opened and given to rg as its standard input (searched with ``-``).

    Both are opened where the guard checked them (``open_checked``): rg starts in the folder that was opened, through
    ``/proc/self/fd``, so a folder swapped for a symlink after the check cannot send it elsewhere.
    If the caller is cancelled, or ``on_line`` raises, rg is killed before the exception goes on.
    """
    folder = open_checked(cwd, os.O_RDONLY | os.O_DIRECTORY)
    source = None
    try:
        if stdin_file is not None:
            source = open_checked(stdin_file, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
            os.set_blocking(source, True)
        start_in = f"/proc/self/fd/{folder}" if os.path.isdir(f"/proc/self/fd/{folder}") else cwd
        process = await asyncio.create_subprocess_exec(
            executable,
            *args,
            cwd=start_in,
            pass_fds=(folder,),
            stdin=asyncio.subprocess.DEVNULL if source is None else source,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    finally:
        os.close(folder)
        if source is not None:
            os.close(source)
    assert process.stdout is not None and process.stderr is not None
    stderr_task = asyncio.create_task(_read_head(process.stderr, _STDERR_CAP))
    try:
        await _feed_lines(process.stdout, on_line, separator)
        code = await process.wait()
        stderr = await stderr_task
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        stderr_task.cancel()
    return RipgrepExit(code=code, stderr=stderr.decode("utf-8", errors="replace").strip())


async def _feed_lines(stream: asyncio.StreamReader, on_line: Callable[[bytes], None], separator: bytes) -> None:
    buffer = bytearray()
    while chunk := await stream.read(_CHUNK):
        searched = len(buffer)
        buffer.extend(chunk)
        consumed = 0
        end = buffer.find(separator, searched)
        while end != -1:
            on_line(bytes(buffer[consumed:end]))
            consumed = end + 1
            end = buffer.find(separator, consumed)
        del buffer[:consumed]
    if buffer:
        on_line(bytes(buffer))


async def _read_head(stream: asyncio.StreamReader, cap: int) -> bytes:
    """Reads the stream to its end (so rg never blocks on a full pipe) and keeps its first ``cap`` bytes."""
    head = b""
    while chunk := await stream.read(_CHUNK):
        if len(head) < cap:
            head += chunk[: cap - len(head)]
    return head
