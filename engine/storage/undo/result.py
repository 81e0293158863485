"""What an undo did (``UndoResult``) and a file's change over a session (``SessionChange``, for ``/diff``)."""

from __future__ import annotations

from engine.record import record
from engine.storage.undo.file_state import FileState


@record
class UndoResult:
    """What ``undo_last_turn`` did. ``applied`` is False when the turn was not (fully) undone: nothing on the
    stack, files changed outside the agent (``conflicts``: undo again with ``force``), or ``errors`` (the turn
    stays on the stack)."""

    applied: bool
    turn_id: str | None = None
    label: str = ""
    restored: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    recreated: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    not_captured: tuple[str, ...] = ()  # what the turn changed that undo did not keep, with why
    remaining: int = 0
    reason: str = ""

    def summary(self) -> str:
        if self.reason:
            return self.reason
        missed = f" Not put back: {'; '.join(self.not_captured)}." if self.not_captured else ""
        parts = [
            f"{verb} {', '.join(paths)}"
            for verb, paths in (("restored", self.restored), ("deleted", self.deleted), ("recreated", self.recreated))
            if paths
        ]
        done = "; ".join(parts) or "the files were already as before the turn"
        forced = f" (overwriting outside changes to {', '.join(self.conflicts)})" if self.conflicts else ""
        name = turn_name(self.label, self.turn_id)
        return f"undid {name}: {done}{forced}.{missed} {self.remaining} more turn(s) to undo."


@record
class SessionChange:
    """A file as it was before this session's tools first touched it, and as it is now."""

    path: str
    before: FileState
    after: FileState



def turn_name(label: str, turn_id: str | None) -> str:
    return f'the turn "{label}"' if label else f"turn {turn_id}"
