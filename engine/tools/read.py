"""The ``read`` tool: a window of a text file with ``cat -n`` line numbers.

A file up to 1 MiB is read whole and its window decoded in one go; a larger one is streamed line by line, so a huge
log or a minified one-line bundle costs the memory of one window, not of the whole file. Each line is decoded on its
own (UTF-8, else latin-1), so one stray byte garbles one line at most.
"""

from __future__ import annotations

import operator
import os
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import BinaryIO

from pydantic import BaseModel, Field

from engine.counted import counted
from engine.errors import ToolError
from engine.record import record
from engine.text_diff import BINARY_SNIFF_BYTES, looks_binary
from engine.tools.base import Tool, ToolContext, ToolKind, ToolOutput
from engine.tools.fileio import UTF8_BOM, open_regular
from engine.tools.guard import ensure_opened_where_checked
from engine.tools.offload import run_file_work

_COUNT_CHUNK = 1 << 20
# Lines past the window are counted up to this many bytes: a 6 GB log is not read to its end to count them.
COUNT_MAX_BYTES = 64 << 20
# A file up to this size is read whole and its window decoded in one go; a larger one is streamed line by line.
_WHOLE_FILE_MAX_BYTES = 1 << 20
_CUT_MARK = " [... line cut at {} characters]"
# UTF-8 needs at most 4 bytes a character: this many bytes always hold more characters than are shown.
_BYTES_PER_CHAR = 4
# The "     7\t" prefixes of the first line numbers, made once: formatting each line's number was most of the cost of
# showing a long window (a few hundred microseconds at 500 lines). Grown as far as windows reach, up to this many.
_NUMBERED_MAX = 20_000
_numbers: list[str] = []


class ReadParams(BaseModel):
    path: str = Field(description="The file to read, relative to the workspace root (or absolute inside it).")
    offset: int | None = Field(
        default=None, ge=1, description="The 1-based line number to start at. Default: 1, the first line."
    )
    limit: int | None = Field(
        default=None, ge=1, description="How many lines to return. Default and maximum: 2000 (configurable)."
    )


@record
class _Window:
    lines: list[str]
    start: int
    # None: the file is too large to count its lines (more follow the window).
    total: int | None
    size: int = 0


class ReadTool(Tool[ReadParams]):
    name = "read"
    description = (
        "Read a text file of the workspace. Returns its lines numbered like `cat -n` (1-based), at most 2000 "
        "lines per call; use `offset` and `limit` to read a large file in parts (the result says when lines "
        "remain and which offset comes next). Very long lines are cut. Binary files and folders are refused "
        "(use `list` for a folder). Read a file before you edit or overwrite it."
    )
    params = ReadParams
    kind = ToolKind.READ

    def key_argument(self, params: ReadParams) -> str:
        return params.path

    async def run(self, params: ReadParams, ctx: ToolContext) -> ToolOutput:
        path = ctx.workspace.resolve(params.path)
        display = ctx.workspace.display(path)
        limit = min(params.limit or ctx.limits.read_max_lines, ctx.limits.read_max_lines)
        window = await run_file_work(
            path, partial(_read_window, path, display, params.offset or 1, limit, ctx.limits.read_max_line_chars)
        )
        ctx.remember(path)
        end = window.start + len(window.lines) - 1
        data: dict[str, object] = {
            "path": display,
            "content": _numbered(window.lines, window.start),
            "start_line": window.start,
            "end_line": max(end, 0),
        }
        if window.total is None:
            data["note"] = (
                f"truncated: more lines follow (the file is {window.size} bytes, too large to count its lines), "
                f"use offset={end + 1} to read on"
            )
            return ToolOutput(data=data)
        data["total_lines"] = window.total
        if window.total == 0:
            data["note"] = "the file is empty"
        elif end < window.total:
            data["note"] = f"truncated: {window.total - end} more lines, use offset={end + 1} to read on"
        return ToolOutput(data=data)


def _numbered(lines: list[str], start: int) -> str:
    """The lines, each after its number (right-aligned in six places and a tab) and before a newline."""
    end = start + len(lines)
    if end > _NUMBERED_MAX:
        return "".join(f"{number:>6}\t{line}\n" for number, line in enumerate(lines, start))
    if len(_numbers) < end:
        _numbers.extend(f"{number:>6}\t" for number in range(len(_numbers), end))
    text = "\n".join(map(operator.add, _numbers[start:end], lines))
    return text + "\n" if text else text


def _read_window(path: Path, display: str, offset: int, limit: int, max_chars: int) -> _Window:
    if path.is_dir():
        raise ToolError(f"{display} is a directory; use the list tool to see what it holds")
    try:
        handle = open_regular(path, display)
    except FileNotFoundError as exc:
        raise ToolError(f"file not found: {display}") from exc
    except OSError as exc:
        raise ToolError(f"cannot read {display}: {exc.strerror or exc}") from exc
    with handle:
        ensure_opened_where_checked(handle.fileno(), path, display)
        if looks_binary(handle.read(BINARY_SNIFF_BYTES)):
            raise ToolError(f"{display} looks like a binary file (it contains NUL bytes); read shows text files only")
        handle.seek(0)
        cap_bytes = max_chars * _BYTES_PER_CHAR + _BYTES_PER_CHAR
        whole = None
        if os.fstat(handle.fileno()).st_size <= _WHOLE_FILE_MAX_BYTES:
            whole = _whole_file_window(handle.read(), offset, limit, max_chars, cap_bytes)
            handle.seek(0)
        if whole is not None:
            shown, total = whole
        else:
            shown, total = _streamed_window(handle, offset, limit, max_chars, cap_bytes)
        size = os.fstat(handle.fileno()).st_size
    if total is not None and offset > max(total, 1):
        raise ToolError(f"offset {offset} is past the end of {display}, which has {counted(total, 'line')}")
    return _Window(lines=shown, start=offset, total=total, size=size)


def _whole_file_window(
    data: bytes, offset: int, limit: int, max_chars: int, cap_bytes: int
) -> tuple[list[str], int] | None:
    """The window and the line count of a file read whole, its lines decoded in one go: several times faster than
    line by line. None when a line of the window is cut, it is not all UTF-8 or the file starts with a BOM: those
    are decoded line by line (``_streamed_window``), which says the same of every other file."""
    if data.startswith(UTF8_BOM):
        return None
    lines = data.split(b"\n") if data else []
    if data.endswith(b"\n"):
        lines.pop()
    window = lines[offset - 1 : offset - 1 + limit]
    if not window:
        return [], len(lines)
    longest = max(map(len, window))
    if longest >= cap_bytes:
        return None
    joined = b"\n".join(window)
    try:
        texts = joined.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return None
    # Per line only where needed: most files have no CR, and no line longer in bytes (so in characters) than the cut.
    if b"\r" in joined:
        texts = [text[:-1] if text.endswith("\r") else text for text in texts]
    if longest > max_chars:
        texts = [_cut_to(text, max_chars) for text in texts]
    return texts, len(lines)


def _streamed_window(
    handle: BinaryIO, offset: int, limit: int, max_chars: int, cap_bytes: int
) -> tuple[list[str], int | None]:
    """The window and the line count (None past ``COUNT_MAX_BYTES``), the file streamed line by line: the memory of
    one window, whatever its size."""
    shown: list[str] = []
    seen = 0
    for raw, cut in _raw_lines(handle, cap_bytes):
        seen += 1
        if seen == 1 and raw.startswith(UTF8_BOM):
            raw = raw[len(UTF8_BOM) :]
        if seen >= offset:
            shown.append(_render_line(raw, cut, max_chars))
            if len(shown) == limit:
                break
    remaining = _count_remaining_lines(handle)
    return shown, None if remaining is None else seen + remaining


def _raw_lines(handle: BinaryIO, cap_bytes: int) -> Iterator[tuple[bytes, bool]]:
    """Each line's first ``cap_bytes`` bytes, and whether more of that line was skipped."""
    while True:
        raw = handle.readline(cap_bytes)
        if not raw:
            return
        if raw.endswith(b"\n") or len(raw) < cap_bytes:
            yield raw, False
            continue
        skipped = 0
        while skipped < COUNT_MAX_BYTES:
            rest = handle.readline(_COUNT_CHUNK)
            skipped += len(rest)
            if not rest or rest.endswith(b"\n"):
                break
        else:
            yield raw, True  # a line longer than the count's budget: the lines after it are not looked for
            return
        yield raw, True


def _count_remaining_lines(handle: BinaryIO) -> int | None:
    count = 0
    last = b"\n"
    budget = COUNT_MAX_BYTES
    while chunk := handle.read(_COUNT_CHUNK):
        count += chunk.count(b"\n")
        last = chunk[-1:]
        budget -= len(chunk)
        if budget <= 0 and handle.read(1):
            return None
    return count if last == b"\n" else count + 1


def _render_line(raw: bytes, cut: bool, max_chars: int) -> str:
    if raw.endswith(b"\n"):
        raw = raw[:-1]
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    text = _decode_line(raw, cut)
    return f"{text[:max_chars]}{_CUT_MARK.format(max_chars)}" if cut else _cut_to(text, max_chars)


def _cut_to(text: str, max_chars: int) -> str:
    return f"{text[:max_chars]}{_CUT_MARK.format(max_chars)}" if len(text) > max_chars else text


def _decode_line(raw: bytes, cut: bool) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A cut can split the last character in two; that is not a sign of another encoding.
        if cut and exc.start >= len(raw) - _BYTES_PER_CHAR:
            return raw[: exc.start].decode("utf-8", errors="replace")
        return raw.decode("latin-1")
