"""The ``list`` tool: one level of a folder, so the model can find its way before it reads or searches.

Nothing is hidden (dot files and ignored folders included) but coder's own `.coder/` (SPEC 13): ``list`` answers
"what is in this folder", while glob and grep answer "where in the project", and honour .gitignore.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from pydantic import BaseModel, Field

from engine.errors import ToolError
from engine.tools.base import Tool, ToolContext, ToolKind, ToolOutput
from engine.tools.guard import PROTECTED_DIR
from engine.tools.opened_where_checked import open_checked


class ListParams(BaseModel):
    path: str = Field(
        default=".", description="The folder to list, relative to the workspace root. Default: the root itself."
    )


class ListTool(Tool[ListParams]):
    name = "list"
    description = (
        "List one folder of the workspace (not recursive). Returns the entry names sorted by name, folders "
        "marked with a trailing '/', and the total number of entries; long listings are cut with a "
        "'truncated' note. Hidden and git-ignored entries are included. Use glob to find files by name "
        "across the project and grep to search their contents."
    )
    params = ListParams
    kind = ToolKind.READ

    def key_argument(self, params: ListParams) -> str:
        return params.path

    async def run(self, params: ListParams, ctx: ToolContext) -> ToolOutput:
        path = ctx.workspace.resolve(params.path)
        display = ctx.workspace.display(path)
        ctx.workspace.refuse_coder_state(path, display)
        entries = await asyncio.to_thread(folder_entries, path, display)
        if path == ctx.workspace.root:
            entries = [entry for entry in entries if entry != f"{PROTECTED_DIR}/"]
        cap = ctx.limits.max_results
        data: dict[str, object] = {"path": display, "entries": entries[:cap], "total": len(entries)}
        if len(entries) > cap:
            data["note"] = f"truncated: showing the first {cap} of {len(entries)} entries"
        return ToolOutput(data=data)


def folder_entries(path: Path, display: str) -> list[str]:
    """The entries of the folder the guard checked, opened without following a symlink swapped in since."""
    try:
        folder = open_checked(path, os.O_RDONLY | os.O_DIRECTORY, display=display)
        try:
            with os.scandir(folder) as found:
                names = [entry.name + "/" if _is_dir(entry) else entry.name for entry in found]
        finally:
            os.close(folder)
    except FileNotFoundError as exc:
        raise ToolError(f"folder not found: {display}") from exc
    except NotADirectoryError as exc:
        raise ToolError(f"{display} is a file, not a folder; use the read tool to see its content") from exc
    except OSError as exc:
        raise ToolError(f"cannot list {display}: {exc.strerror or exc}") from exc
    return sorted(names, key=lambda name: (name.casefold(), name))


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False
