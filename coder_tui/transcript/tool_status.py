"""How each tool-call state looks: a glyph, a word and a colour, shared by the transcript and the tool-event log."""

from __future__ import annotations


from textual.content import Content

from coder_tui.transcript.formatting import format_duration
from engine.events import ToolStatus
from engine.record import record


@record
class StatusLook:
    glyph: str
    label: str
    style: str


STATUS_LOOKS: dict[ToolStatus, StatusLook] = {
    ToolStatus.SCHEDULED: StatusLook("○", "scheduled", "$text-muted"),
    ToolStatus.AWAITING_APPROVAL: StatusLook("?", "awaiting approval", "bold $text-warning"),
    ToolStatus.EXECUTING: StatusLook("◐", "executing", "$text-accent"),
    ToolStatus.SUCCESS: StatusLook("✓", "success", "$text-success"),
    ToolStatus.ERROR: StatusLook("✗", "error", "$text-error"),
    ToolStatus.DENIED: StatusLook("⊘", "denied", "$text-error"),
    ToolStatus.CANCELLED: StatusLook("■", "cancelled", "$text-warning"),
}


def tool_summary(
    tool: str, key_argument: str, status: ToolStatus, duration_ms: float | None, *, width: int | None = None
) -> Content:
    """``✓ edit  src/app.py  success 12ms``: tool, key argument, state and duration on one line."""
    look = STATUS_LOOKS[status]
    tail = look.label if duration_ms is None else f"{look.label} {format_duration(duration_ms)}"
    argument = key_argument.replace("\n", " ⏎ ")
    if width is not None:
        room = max(width - len(tool) - len(tail) - 6, 8)
        if len(argument) > room:
            argument = argument[: room - 1] + "…"
    return Content.assemble(
        (f"{look.glyph} ", look.style),
        (tool, "bold"),
        "  ",
        (argument, "$text"),
        "  ",
        (tail, look.style),
    )
