"""An ACP session on a worktree of its own (SPEC 26): ``session/new`` with ``_meta: {"coder.worktree": NAME}`` (or
``true``) makes a git worktree and branch ``coder/NAME`` of the client's folder, and the session works there, so an
editor's agents never write in the checkout or in each other's trees."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from acp import RequestError

from engine.agents.worktree import Worktree, WorktreeError, add_worktree, free_name

WORKTREE_META = "coder.worktree"


async def new_worktree(folder: Path, asked: Any) -> Worktree:
    """The worktree ``asked`` names (a name, or ``true`` for one made up), or an invalid-params error saying why."""
    if asked is True:
        name = free_name(folder, "editor session")
    elif isinstance(asked, str) and asked:
        name = asked
    else:
        raise RequestError.invalid_params({"_meta": WORKTREE_META, "message": "give a worktree name, or true"})
    try:
        return await asyncio.to_thread(add_worktree, folder, name, dict(os.environ))
    except WorktreeError as exc:
        raise RequestError.invalid_params({"_meta": WORKTREE_META, "message": str(exc)}) from exc
