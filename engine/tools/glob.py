"""The ``glob`` tool: files whose path matches a pattern, newest first, through ``rg --files``.

ripgrep gives .gitignore handling and its glob dialect (``**``, ``{a,b}``) for free. rg is run from the searched
folder, so the pattern is relative to ``path`` as the model wrote it. One rg rule shows through: an ignored
*folder* is never entered, but a single ignored *file* that the pattern names explicitly is listed.
The pure-Python fallback (a bounded walk with rg's glob dialect, no .gitignore) exists only for machines without
``rg``.
"""

from __future__ import annotations

import asyncio
import os
import re
import threading
from functools import partial
from pathlib import Path

from pydantic import BaseModel, Field

from engine.errors import ToolError
from engine.tools.base import Tool, ToolContext, ToolKind, ToolOutput
from engine.tools.ripgrep import SKIPPED_FOLDERS, find_ripgrep, run_ripgrep, search_args
from engine.tools.walk import regular_files, run_walk


class GlobParams(BaseModel):
    pattern: str = Field(
        min_length=1,
        description=(
            "A glob such as '**/*.py', 'src/**/*.{ts,tsx}' or 'test_*.py'. A pattern without '/' matches file "
            "names at any depth; one with '/' is matched against the path relative to `path`."
        ),
    )
    path: str | None = Field(
        default=None, description="The folder to search in, relative to the workspace root. Default: the root."
    )


class GlobTool(Tool[GlobParams]):
    name = "glob"
    description = (
        "Find files by name pattern in the workspace (recursive, .gitignore honoured, hidden files included, "
        "never .git/ or .coder/). Returns workspace-relative paths, most recently modified first, and the total "
        "count; long results are cut with a 'truncated' note, so narrow the pattern or the path when that happens. "
        "Use grep to search file contents and list to see one folder."
    )
    params = GlobParams
    kind = ToolKind.READ

    def key_argument(self, params: GlobParams) -> str:
        return params.pattern if params.path is None else f"{params.pattern} in {params.path}"

    async def run(self, params: GlobParams, ctx: ToolContext) -> ToolOutput:
        base = ctx.workspace.resolve(params.path or ".")
        display = ctx.workspace.display(base)
        ctx.workspace.refuse_coder_state(base, display)
        if not base.exists():
            raise ToolError(f"folder not found: {display}")
        if not base.is_dir():
            raise ToolError(f"{display} is a file, not a folder; give its folder as path")
        warning = ""
        executable = find_ripgrep()
        if executable is not None:
            found, warning = await _ripgrep_files(executable, base, params.pattern)
        else:
            found, note = await run_walk(partial(_python_glob, base, params.pattern))
            warning = note or ""
        found = [relative for relative in found if not ctx.workspace.shows_coder_state(base / relative)]
        ranked = await asyncio.to_thread(_newest_first, base, found)
        cap = ctx.limits.max_results
        data: dict[str, object] = {
            "pattern": params.pattern,
            "path": display,
            "files": [ctx.workspace.display(base / relative) for relative in ranked[:cap]],
            "total": len(ranked),
        }
        if len(ranked) > cap:
            data["note"] = f"truncated: showing the {cap} newest of {len(ranked)} files; narrow the pattern or path"
        if warning:
            data["warning"] = warning
        return ToolOutput(data=data)


async def _ripgrep_files(executable: str, base: Path, pattern: str) -> tuple[list[Path], str]:
    """The matching files relative to ``base``, and rg's complaint if it met unreadable folders on the way. Names
    come NUL-separated: a file name may hold a newline."""
    found: list[Path] = []

    def collect(line: bytes) -> None:
        if line:
            found.append(Path(os.fsdecode(line)))

    args = ["--files", "--null", *search_args(pattern), "--", "."]
    result = await run_ripgrep(executable, args, base, collect, separator=b"\0")
    if result.code not in (0, 1):
        if not found:
            raise ToolError(f"glob {pattern!r} failed: {result.stderr or f'rg exited with {result.code}'}")
        return found, result.stderr
    return found, ""


def _python_glob(base: Path, pattern: str, stop: threading.Event) -> tuple[list[Path], str | None]:
    """The fallback: a bounded walk (``walk.regular_files``: no symlink followed, nothing under .git or .coder) and
    rg's glob dialect (``**``, ``*``, ``?``, ``[...]``, ``{a,b}``); a pattern without '/' matches file names."""
    try:
        regex = glob_regex(pattern)
    except re.error as exc:
        raise ToolError(f"invalid glob pattern {pattern!r}: {exc}") from exc
    by_name = "/" not in pattern.strip("/")

    def keep(relative: str) -> bool:
        return regex.fullmatch(relative.rsplit("/", 1)[-1] if by_name else relative) is not None

    walked = regular_files(base, skip=SKIPPED_FOLDERS, keep=keep, stop=stop)
    return [Path(relative) for relative in walked.files], walked.note


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A compiled regular expression for a glob in rg's dialect, matched against a posix relative path."""
    pattern = pattern.lstrip("/")
    out: list[str] = []
    index, depth = 0, 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            out.append("(?:[^/]*/)*")
            index += 3
            continue
        if pattern.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            close = pattern.find("]", index + 2 if pattern[index + 1 : index + 2] in ("!", "^") else index + 1)
            if close == -1:
                raise re.error(f"unclosed '[' in {pattern!r}")
            else:
                body = pattern[index + 1 : close]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append(f"[{body.replace(chr(92), chr(92) * 2)}]")
                index = close
        elif char == "{":
            out.append("(?:")
            depth += 1
        elif char == "}" and depth:
            out.append(")")
            depth -= 1
        elif char == "," and depth:
            out.append("|")
        elif char == "\\" and index + 1 < len(pattern):
            index += 1
            out.append(re.escape(pattern[index]))
        else:
            out.append(re.escape(char))
        index += 1
    if depth:
        raise re.error(f"unclosed '{{' in {pattern!r}")
    return re.compile("".join(out), re.DOTALL)


def _newest_first(base: Path, files: list[Path]) -> list[Path]:
    def modified(relative: Path) -> int:
        try:
            return (base / relative).stat().st_mtime_ns
        except OSError:
            return 0

    return sorted(files, key=lambda relative: (-modified(relative), relative.as_posix()))
