"""The line above the prompt: the model, context tokens used / window, and what the session is doing."""

from __future__ import annotations

from typing import Literal

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from coder_tui.transcript.formatting import format_context, format_tokens

SessionState = Literal["starting", "ready", "working", "interrupted", "unavailable"]

_STATE_LOOKS: dict[str, tuple[str, str]] = {
    "starting": ("starting the engine…", "$text-muted"),
    "ready": ("ready", "$text-muted"),
    "working": ("working…", "$text-accent"),
    "interrupted": ("interrupted", "bold $text-warning"),
    "unavailable": ("engine unavailable", "bold $text-error"),
}


class StatusLine(Widget):
    """One line; every field is reactive so an event updates it without rebuilding anything."""

    DEFAULT_CSS = """
    StatusLine {
        height: 1;
        padding: 0 1;
        color: $text-muted;
    }
    """

    model: reactive[str] = reactive("")
    # No key and no server URL: no model is named as if it were set.
    model_missing: reactive[bool] = reactive(False)
    context_used: reactive[int] = reactive(0)
    context_window: reactive[int] = reactive(0)
    state: reactive[SessionState] = reactive("starting")
    # While working: how long the input has run, and about how many tokens the model has streamed for it.
    elapsed_s: reactive[int] = reactive(0)
    streamed_tokens: reactive[int] = reactive(0)
    # The prompt's vim mode ("normal", "insert"), "" when vim keys are off.
    vim_mode: reactive[str] = reactive("")
    # With agents (SPEC 26): the one in view, how many run and the tokens of them all; "" without agents.
    agents: reactive[str] = reactive("")

    def render(self) -> Content:
        if self.model_missing:
            left = Content.styled("no model configured (see above)", "bold $text-warning")
        else:
            left = Content.assemble((self.model or "no model", "bold"))
        if self.context_window:
            left = Content.assemble(left, "  ·  context ", format_context(self.context_used, self.context_window))
        if self.vim_mode:
            look = "bold $text-accent" if self.vim_mode == "normal" else "bold $text-success"
            left = Content.assemble((f"-- {self.vim_mode.upper()} --", look), "  ", left)
        if self.agents:
            left = Content.assemble(left, "  ·  ", (self.agents, "$text-accent"))
        text, style = _STATE_LOOKS[self.state]
        right = Content.styled(text, style)
        if self.state == "working":
            progress = self._progress()
            hinted = Content.assemble(right, *progress, " · esc to interrupt" if progress else " esc to interrupt")
            # A narrow screen keeps the time and the tokens; the footer still names Esc.
            fits = left.cell_length + hinted.cell_length + 2 <= self.size.width or not progress
            right = hinted if fits else Content.assemble(right, *progress)
        gap = max(self.size.width - left.cell_length - right.cell_length, 2)
        return Content.assemble(left, " " * gap, right)

    def _progress(self) -> list[str]:
        parts = []
        if self.elapsed_s:
            minutes, seconds = divmod(self.elapsed_s, 60)
            parts.append(f" {minutes}m {seconds:02d}s" if minutes else f" {seconds}s")
        if self.streamed_tokens:
            parts.append(f" · ↓ {format_tokens(self.streamed_tokens)} tokens")
        return parts
