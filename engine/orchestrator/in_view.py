"""``SessionsInView``: the open sessions (``OpenSessions``), what commands and front ends read of the one in view
(the one they act on), and its mode set. The orchestrator is one; it makes the sessions and switches between them
(``switching``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.events import Event, ModeChanged, Notice
from engine.policy.presets import parse_preset

if TYPE_CHECKING:
    from engine.modes import Mode
    from engine.orchestrator.runtime import OpenSessions, SessionRuntime
    from engine.orchestrator.session import Session
    from engine.policy import PermissionPolicy
    from engine.storage.store import Store
    from engine.storage.undo.journal import UndoJournal
    from engine.tools.base import ToolContext


class SessionsInView:
    runtimes: OpenSessions
    store: Store
    emit: Callable[[Event], None]

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

    def set_mode(self, mode: Mode) -> None:
        self._mode_changed(refused=self.policy.set_mode(mode) is not mode)

    def set_preset(self, preset: str) -> None:
        self.policy.set_preset(preset)
        self._mode_changed(refused=self.policy.preset != parse_preset(preset))

    def _mode_changed(self, refused: bool = False) -> None:
        """The session stores its mode and front ends hear it. ``refused``: the policy kept plan mode (a home-folder
        workspace) instead of the mode asked for."""
        if refused:
            self.emit(
                Notice(
                    f"the workspace {self.policy.plan_only}: this session stays read-only, in plan mode (start "
                    "coder-tui in a project folder to change files)",
                    level="warning",
                )
            )
        mode = self.policy.mode.value
        self.session.mode = mode
        self.store.sessions.update(self.session.id, mode=mode)
        self.emit(ModeChanged(mode))
