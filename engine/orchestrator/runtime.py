"""``SessionRuntime``: one session's live state as one value (SPEC 1, 2026-12-07).

The conversation, its undo journal, its compaction state, its loop detector, its permission policy (the mode and
the "always" answers), its tools' per-session state (todos, files read) and the task it is running. The
orchestrator holds a map of them by session id and one in view: switching, ``/fork``, ``/resume`` and ``/clear``
replace the value in view; two runtimes run their turns at the same time, each event tagged with its session.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.context.compaction import CompactionState
from engine.events import Event
from engine.modes import Mode
from engine.orchestrator.session import Session
from engine.policy import PermissionPolicy
from engine.tools.base import ToolContext, ToolLimits
from engine.workflow.loop_detection import LoopDetector

if TYPE_CHECKING:
    from pathlib import Path

    from engine.agents.worktree import Worktree
    from engine.capture.tool_capture import ToolCapture
    from engine.config import Config
    from engine.hooks.dispatcher import HookDispatcher
    from engine.orchestrator.outcome import TurnOutcome
    from engine.storage.sessions.lock import SessionLocks
    from engine.storage.undo.journal import UndoJournal
    from engine.tools.guard import Workspace

# The runtime whose input the running asyncio task serves (set in that task's own context), for collaborators shared
# by every session (the interaction wrapper, the sub-agent runner) to find the session a call belongs to.
running_runtime: ContextVar[SessionRuntime | None] = ContextVar("running_runtime", default=None)


@dataclass(eq=False)
class SessionRuntime:
    session: Session
    undo: UndoJournal
    policy: PermissionPolicy
    tool_context: ToolContext
    # Publishes an event tagged with this session's id.
    emit: Callable[[Event], None]
    # What a tool call of this session changes goes to its undo journal (the capture of its workspace).
    capture: SessionCapture
    compaction: CompactionState = field(default_factory=CompactionState)
    loops: LoopDetector = field(default_factory=LoopDetector)
    # Why the session began, for its SessionStart hooks at its first request ("startup" or "resume"); None once
    # they ran.
    session_start: str | None = "startup"
    # The task (user request) running now, for the audit rows of questions and sub-agents; None between tasks.
    task_id: str | None = None
    # The input running now (a turn, a command), cancelled by ``cancel``.
    input_task: asyncio.Task[TurnOutcome] | None = None
    # An agent's name (SPEC 26): its session works in a worktree of its own; None for the main session.
    agent: str | None = None
    # The hooks as they run for this session: in its worktree for an agent; None: the engine's own.
    hooks: HookDispatcher | None = None

    @property
    def id(self) -> str:
        return self.session.id

    @property
    def mode(self) -> Mode:
        return self.policy.mode

    @property
    def busy(self) -> bool:
        return self.input_task is not None

    def reconfigure(
        self, config: Config, root: Path, *, always_scopes: dict[str, str], limits: ToolLimits, keep_mode: bool
    ) -> None:
        """A reloaded configuration: a new policy (its "always" answers reset; the mode kept when ``keep_mode``) and
        the tools' limits."""
        mode = self.policy.mode
        self.policy = PermissionPolicy.for_settings(config, config.mode, root)
        self.policy.always_scopes = always_scopes
        if keep_mode:
            self.policy.set_mode(mode)
        self.tool_context.limits = limits

    def cancel(self) -> bool:
        """Cancels the running input: the stream is aborted, a bash group killed, an open approval dismissed."""
        if self.input_task is None or self.input_task.done():
            return False
        self.input_task.cancel()
        return True


@dataclass(eq=False)
class AgentTree:
    """The tree an agent's session works in (SPEC 26): its worktree, guarded as a workspace, and the capture of it
    that its undo uses, with the lock its captured calls take turns by."""

    name: str
    worktree: Worktree
    workspace: Workspace
    capture: ToolCapture
    capture_turns: asyncio.Lock


class SessionCapture:
    """The workspace capture as one session sees it: what a call changes goes to that session's undo journal.
    Sessions of one workspace share its capture, so their captured calls take turns: a change lands in the journal
    of the call that made it, never in another session's."""

    def __init__(self, capture: ToolCapture, journal: Callable[[], UndoJournal], turns: asyncio.Lock) -> None:
        self._capture = capture
        self._journal = journal
        self._turns = turns

    @asynccontextmanager
    async def around(self) -> AsyncIterator[None]:
        async with self._turns, self._capture.around(self._journal()):
            yield


class OpenSessions:
    """The sessions open in one engine, by id, and the one in view; each open session's lock is held."""

    def __init__(self, locks: SessionLocks) -> None:
        self._locks = locks
        self._by_id: dict[str, SessionRuntime] = {}
        self._view: SessionRuntime | None = None

    @property
    def view(self) -> SessionRuntime:
        """The session in view: the one commands act on and front ends show."""
        assert self._view is not None, "no session is open yet"
        return self._view

    def __getitem__(self, session_id: str) -> SessionRuntime:
        return self._by_id[session_id]

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._by_id

    def values(self) -> list[SessionRuntime]:
        return list(self._by_id.values())

    def add(self, runtime: SessionRuntime) -> None:
        """Opens ``runtime`` beside the others."""
        self._by_id[runtime.id] = runtime

    def show(self, runtime: SessionRuntime) -> None:
        """Puts the open session ``runtime`` in view (an agent's, or back to the main one); the one in view stays
        open."""
        assert runtime.id in self._by_id, "only an open session can be shown"
        self._view = runtime

    def remove(self, session_id: str) -> None:
        """Closes an open session that is not in view (an agent discarded) and releases its lock."""
        if self._view is not None and self._view.id == session_id:
            raise ValueError("the session in view cannot be closed")
        self._by_id.pop(session_id, None)
        self.keep_locks()

    def replace_view(self, runtime: SessionRuntime) -> None:
        """Puts ``runtime`` in view in place of the one there (a switch of session runs inside that one's input,
        which the new one now carries), and releases the locks of sessions no longer open."""
        old = self._view
        if old is not None:
            self._by_id.pop(old.id, None)
            runtime.input_task = old.input_task
        self._by_id[runtime.id] = runtime
        self._view = runtime
        self.keep_locks()

    def keep_locks(self) -> None:
        """Releases every lock but the open sessions' (one claimed for a switch that did not happen)."""
        self._locks.keep_only(*self._by_id)

    def active(self) -> SessionRuntime | None:
        """The session whose input the running task serves (a turn of a session not in view), else the one in view;
        None before any session is open."""
        running = running_runtime.get()
        if running is not None and running.id in self._by_id:
            return running
        return self._view
