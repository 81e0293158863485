"""What one input came to, for the front end and for the headless exit code."""

from __future__ import annotations


from engine.events import TurnEndReason
from engine.record import record


@record
class TurnOutcome:
    reason: TurnEndReason
    error: str | None = None
    text: str = ""
    # A ``!command``'s own exit status (124 when it timed out), for a headless run to exit with.
    exit_status: int | None = None

    @property
    def ok(self) -> bool:
        return self.reason == "completed"
