"""The explicit state a turn's steps pass along (SPEC 3)."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.events import TurnEndReason


@dataclass
class TurnState:
    turn_id: str
    user_text: str
    # Context the hooks added to the request (SessionStart, UserPromptSubmit), sent after the user's text.
    hook_context: str = ""
    steps: int = 0
    tool_calls: int = 0
    edited_paths: list[str] = field(default_factory=list)
    verify_attempts: int = 0
    # How many times a Stop hook kept the turn going when the model had finished.
    stop_hook_continuations: int = 0
    final_text: str = ""
    end_reason: TurnEndReason | None = None
    error: str | None = None

    def end(self, reason: TurnEndReason, error: str | None = None) -> None:
        self.end_reason = reason
        self.error = error
