"""The ``glob`` tool: files whose path matches a pattern, newest first, through ``rg --files``.

ripgrep gives .gitignore handling and its glob dialect (``**``, ``{a,b}``) for free. rg is run from the searched
folder, so the pattern is relative to ``path`` as the model wrote it. One rg rule shows through: an ignored
*folder* is never entered, but a single ignored *file* that the pattern names explicitly is listed.
The pure-Python fallback (``pathlib`` globbing, no .gitignore) exists only for machines without ``rg``.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from pydantic import BaseModel, Field

from engine.errors import ToolError
from engine.tools.base import Tool, ToolContext, ToolKind, ToolOutput
from engine.tools.ripgrep import SKIPPED_FOLDERS, find_ripgrep, run_ripgrep, search_args


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
            found = await asyncio.to_thread(_python_glob, base, params.pattern, ctx.workspace.root)
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


def _python_glob(base: Path, pattern: str, root: Path) -> list[Path]:
    """The fallback: pathlib's glob, files only, nothing under .git or .coder and nothing reached through a symlink."""
    try:
        matches = list(base.rglob(pattern) if "/" not in pattern else base.glob(pattern))
    except (ValueError, NotImplementedError) as exc:
        raise ToolError(f"invalid glob pattern {pattern!r}: {exc}") from exc
    found: list[Path] = []
    for match in matches:
        relative = match.relative_to(base)
        if any(part in SKIPPED_FOLDERS for part in relative.parts) or match.is_symlink() or not match.is_file():
            continue
        if not Path(os.path.realpath(match)).is_relative_to(root):
            continue
        found.append(relative)
    return found


def _newest_first(base: Path, files: list[Path]) -> list[Path]:
    def modified(relative: Path) -> int:
        try:
            return (base / relative).stat().st_mtime_ns
        except OSError:
            return 0

    return sorted(files, key=lambda relative: (-modified(relative), relative.as_posix()))
