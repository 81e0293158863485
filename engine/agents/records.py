"""What is known of one agent (SPEC 26): where it works (its worktree, branch and base commit), the session it
runs, its state, its todo progress, its time and its tokens. Kept in the database with the main session
(``engine.storage.agent_table``), so ``/agents`` lists it after a restart."""

from __future__ import annotations

from enum import Enum
from typing import Any

from engine.record import record


class AgentState(str, Enum):
    QUEUED = "queued"  # more agents than ``agents.max_running`` run: it starts when one ends
    WORKING = "working"
    WAITING = "waiting for you"  # an approval or a question of its own is open
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def running(self) -> bool:
        return self in (AgentState.QUEUED, AgentState.WORKING, AgentState.WAITING)


@record
class AgentRecord:
    name: str
    task: str
    # The agent's own session (its messages, undo journal and todos are that session's).
    session_id: str
    # The session it was started from.
    parent_session_id: str
    # The worktree's top, the agent's workspace in it, its branch and the commit the branch started from.
    root: str
    workspace: str
    branch: str
    base_commit: str
    mode: str
    state: AgentState
    # Seconds since the epoch; ``finished_at`` None while it runs.
    started_at: float
    finished_at: float | None = None
    todos_done: int = 0
    todos_total: int = 0
    tokens: int = 0
    # Why it failed or stopped, if it did.
    note: str = ""

    def elapsed(self, now: float) -> float:
        return max(0.0, (self.finished_at or now) - self.started_at)

    def row(self, now: float) -> dict[str, Any]:
        """The agent as a plain JSON row (what a command result or the agents pane carries)."""
        return {
            "name": self.name,
            "task": self.task,
            "state": self.state.value,
            "branch": self.branch,
            "worktree": self.root,
            "base_commit": self.base_commit,
            "session_id": self.session_id,
            "mode": self.mode,
            "todos_done": self.todos_done,
            "todos_total": self.todos_total,
            "elapsed_s": round(self.elapsed(now), 1),
            "tokens": self.tokens,
            "note": self.note,
        }
