"""``SessionsInView``: the open sessions (``OpenSessions``) and what commands and front ends read of the one in
view, the one they act on. The orchestrator is one; it makes the sessions and switches between them
(``switching``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.modes import Mode
    from engine.orchestrator.runtime import OpenSessions, SessionRuntime
    from engine.orchestrator.session import Session
    from engine.policy import PermissionPolicy
    from engine.storage.undo.journal import UndoJournal
    from engine.tools.base import ToolContext


class SessionsInView:
    runtimes: OpenSessions

    @property
    def runtime(self) -> SessionRuntime:
        """The session in view: the one commands act on and front ends show."""
        return self.runtimes.view

    def active_runtime(self) -> SessionRuntime:
        """The session whose input the running task serves, else the one in view."""
        return self.runtimes.active() or self.runtime

    def keep_open_locks(self) -> None:
        self.runtimes.keep_locks()

    def cancel(self, session_id: str | None = None) -> bool:
        """Cancels the running input of the session in view (or of ``session_id``): the stream is aborted, a bash
        group killed, an open approval dismissed."""
        return (self.runtime if session_id is None else self.runtimes[session_id]).cancel()

    @property
    def session(self) -> Session:
        return self.runtime.session

    @property
    def session_id(self) -> str:
        return self.session.id

    @property
    def undo(self) -> UndoJournal:
        return self.runtime.undo

    @property
    def policy(self) -> PermissionPolicy:
        return self.runtime.policy

    @property
    def tool_context(self) -> ToolContext:
        return self.runtime.tool_context

    @property
    def busy(self) -> bool:
        return self.runtime.busy

    @property
    def mode(self) -> Mode:
        return self.policy.mode

    @property
    def model(self) -> str:
        return self.session.model
