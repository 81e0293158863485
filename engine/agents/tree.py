"""The tree an agent works in (SPEC 26): its worktree, guarded as a workspace, and the capture of it that its undo
uses. Made by the agent pool, read by the session it runs (``switching.make_runtime``)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.agents.worktree import Worktree
    from engine.capture.tool_capture import ToolCapture
    from engine.tools.guard import Workspace


@dataclass(eq=False)
class AgentTree:
    name: str
    worktree: Worktree
    workspace: Workspace
    capture: ToolCapture
    capture_turns: asyncio.Lock
