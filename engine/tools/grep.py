"""The ``grep`` tool: lines matching a regular expression, through ``rg --json``.

Results are sorted by path (``--sort path``) so the same call always gives the same answer, even when it is cut.
After the cap, rg's output is still read to its end, but only for its closing summary: the total tells the model
how much it did not see. The pure-Python fallback (``re`` over a folder walk, no .gitignore) exists only for
machines without ``rg``.
"""

from __future__ import annotations

import base64
import json
import os
import re
import threading
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from engine.errors import ToolError
from engine.text_diff import looks_binary
from engine.tools.base import Tool, ToolContext, ToolKind, ToolOutput
from engine.tools.fileio import decode_text, refuse_special_file, special_file_kind
from engine.tools.glob import glob_regex
from engine.tools.opened_where_checked import open_checked
from engine.tools.ripgrep import SKIPPED_FOLDERS, find_ripgrep, run_ripgrep, search_args
from engine.tools.walk import regular_files, run_walk


class GrepParams(BaseModel):
    pattern: str = Field(
        min_length=1, description="A regular expression (ripgrep's Rust syntax), e.g. 'def \\w+_test'."
    )
    path: str | None = Field(
        default=None, description="A folder or file to search, relative to the workspace root. Default: the root."
    )
    glob: str | None = Field(
        default=None, description="Only search files matching this glob, e.g. '*.py' or 'src/**/*.ts'."
    )
    ignore_case: bool = Field(default=False, description="Match without regard to letter case.")
    context: int = Field(default=0, ge=0, le=10, description="Lines of context to show before and after each match.")
    max_results: int | None = Field(
        default=None, ge=1, le=2000, description="How many matching lines to return at most. Default: 200."
    )


class GrepTool(Tool[GrepParams]):
    name = "grep"
    description = (
        "Search file contents in the workspace with a regular expression (ripgrep: recursive, .gitignore "
        "honoured, hidden files included, binary files skipped). Returns matching lines as file, line number "
        "and text (plus context lines when `context` is set, marked context: true), sorted by path, and the "
        "total number of matching lines; results past `max_results` are cut with a 'truncated' note. Use "
        "`glob` to restrict the file types; use the glob tool to find files by name."
    )
    params = GrepParams
    kind = ToolKind.READ

    def key_argument(self, params: GrepParams) -> str:
        return params.pattern if params.path is None else f"{params.pattern} in {params.path}"

    async def run(self, params: GrepParams, ctx: ToolContext) -> ToolOutput:
        target = ctx.workspace.resolve(params.path or ".")
        display = ctx.workspace.display(target)
        ctx.workspace.refuse_coder_state(target, display)
        if not target.exists():
            raise ToolError(f"path not found: {display}")
        # rg skips FIFOs and devices it meets in a folder, but opens one it is named: it would block or never end.
        refuse_special_file(target, display)
        cap = params.max_results or ctx.limits.max_results
        search = _Search(ctx, cap, params.context)
        # rg runs in the searched folder so that `glob` is relative to `path`, as for the glob tool.
        cwd, name = (target, ".") if target.is_dir() else (target.parent, target.name)
        executable = find_ripgrep()
        if executable is not None:
            warning = await _ripgrep(executable, params, cwd, name, search)
        else:
            warning = await run_walk(partial(_python_grep, params, cwd, name, search)) or ""
        data: dict[str, Any] = {
            "pattern": params.pattern,
            "path": display,
            "matches": search.entries,
            "total": search.total,
        }
        if search.total > cap:
            data["note"] = (
                f"truncated: showing {cap} of {search.total} matching lines; narrow the pattern, path or glob"
            )
        if warning:
            data["warning"] = warning
        return ToolOutput(data=data)


class _Search:
    """Collects result lines up to the cap and counts every matching line."""

    def __init__(self, ctx: ToolContext, cap: int, context: int) -> None:
        self.ctx = ctx
        self.cap = cap
        self.entries: list[dict[str, Any]] = []
        self.matched = 0
        self.total = 0
        self.context = context
        # How many of the lines that follow the last match shown may still be its context.
        self.context_left = 0

    @property
    def full(self) -> bool:
        return self.matched >= self.cap

    def add(self, file: Path, line: int, text: str, *, context: bool) -> None:
        if self.ctx.workspace.shows_coder_state(file):
            return
        if not context:
            self.matched += 1
            self.context_left = self.context if self.full else 0
        elif self.full:
            self.context_left -= 1
        entry: dict[str, Any] = {"file": self.ctx.workspace.display(file), "line": line, "text": self._cut(text)}
        if context:
            entry["context"] = True
        self.entries.append(entry)

    def _cut(self, text: str) -> str:
        text = text.rstrip("\r\n")
        limit = self.ctx.limits.read_max_line_chars
        return text if len(text) <= limit else f"{text[:limit]} [... line cut at {limit} characters]"


async def _ripgrep(executable: str, params: GrepParams, cwd: Path, name: str, search: _Search) -> str:
    args = ["--json", "--sort", "path", *search_args(*([params.glob] if params.glob else []))]
    if params.ignore_case:
        args.append("--ignore-case")
    if params.context:
        args += ["--context", str(params.context)]
    # A single file is opened where it was checked and searched as rg's stdin, under its own name.
    single = name != "."
    args += ["--regexp", params.pattern, "--", "-" if single else name]

    def take(line: bytes) -> None:
        if search.full and not (search.context_left and line.startswith(b'{"type":"context"')):
            # Past the cap (and the last match's context) only the closing summary matters: no JSON parsing.
            search.context_left = 0
            if b'"summary"' in line:
                _take_summary(json.loads(line), search)
            return
        message = json.loads(line) if line else {}
        kind, data = message.get("type"), message.get("data", {})
        if kind in ("match", "context"):
            file = cwd / name if single else cwd / _text(data["path"])
            search.add(file, data["line_number"], _text(data["lines"]), context=kind == "context")
        else:
            _take_summary(message, search)

    result = await run_ripgrep(executable, args, cwd, take, stdin_file=cwd / name if single else None)
    if result.code not in (0, 1):
        if not search.entries:
            raise ToolError(f"grep {params.pattern!r} failed: {result.stderr or f'rg exited with {result.code}'}")
        return result.stderr
    return ""


def _take_summary(message: dict[str, Any], search: _Search) -> None:
    if message.get("type") == "summary":
        search.total = message["data"]["stats"]["matched_lines"]


def _text(field: dict[str, str]) -> str:
    """rg's JSON gives text as ``{"text": ...}``, or ``{"bytes": base64}`` when it is not valid UTF-8."""
    if "text" in field:
        return field["text"]
    return os.fsdecode(base64.b64decode(field["bytes"]))


# The fallback reads each file whole: larger ones are skipped (rg, which streams, has no such limit).
FALLBACK_MAX_FILE_BYTES = 32 * 1024 * 1024


def _python_grep(params: GrepParams, cwd: Path, name: str, search: _Search, stop: threading.Event) -> str | None:
    """The fallback: Python ``re`` over every text file, in path order like ``rg --sort path``; what it left out
    (a bounded walk's note, files too large) is returned."""
    try:
        regex = re.compile(params.pattern, re.IGNORECASE if params.ignore_case else 0)
    except re.error as exc:
        raise ToolError(f"grep {params.pattern!r} failed: invalid regular expression: {exc}") from exc
    files, note = _walk(cwd, name, params.glob, stop)
    too_large = 0
    for file in files:
        if stop.is_set():
            return "the search was cancelled"
        data = _read_capped(file)
        if data is None:
            too_large += 1
            continue
        if not data or looks_binary(data):
            continue
        lines = decode_text(data).text.split("\n")
        if lines[-1] == "":
            lines.pop()  # the text after the final newline is not a line
        matching = [index for index, line in enumerate(lines) if regex.search(line)]
        search.total += len(matching)
        hits, shown = set(matching), set[int]()
        for index in matching:
            if search.full:
                break
            for number in range(max(index - params.context, 0), min(index + params.context, len(lines) - 1) + 1):
                if number in shown:
                    continue
                if number in hits and search.full:
                    break
                shown.add(number)
                search.add(file, number + 1, lines[number], context=number not in hits)
    if too_large:
        skipped = f"{too_large} file(s) larger than {FALLBACK_MAX_FILE_BYTES // (1024 * 1024)} MiB were not searched"
        note = f"{note}; {skipped}" if note else skipped
    return note


def _read_capped(file: Path) -> bytes | None:
    """The file's bytes, opened where it was found (no symlink followed, no FIFO or device); b"" when it cannot be
    read; None when it is too large to read whole."""
    try:
        fd = open_checked(file, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except (OSError, ToolError):
        return b""
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if special_file_kind(info.st_mode) is not None:
            return b""
        if info.st_size > FALLBACK_MAX_FILE_BYTES:
            return None
        return handle.read(FALLBACK_MAX_FILE_BYTES + 1)


def _walk(cwd: Path, name: str, glob: str | None, stop: threading.Event) -> tuple[list[Path], str | None]:
    """Regular files under ``cwd / name`` in path order, never through a symlink and never inside .git or .coder,
    through the bounded walk."""
    start = cwd / name
    if start.is_file():
        return [start], None
    try:
        regex = glob_regex(glob) if glob else None
    except re.error as exc:
        raise ToolError(f"invalid glob {glob!r}: {exc}") from exc
    by_name = glob is not None and "/" not in glob

    def keep(relative: str) -> bool:
        return regex is None or regex.fullmatch(relative.rsplit("/", 1)[-1] if by_name else relative) is not None

    walked = regular_files(start, skip=SKIPPED_FOLDERS, keep=keep, stop=stop)
    return [start / relative for relative in walked.files], walked.note
