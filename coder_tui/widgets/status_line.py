"""The line above the prompt: the model, context tokens used / window, and what the session is doing."""

from __future__ import annotations

from typing import Literal

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from coder_tui.transcript.formatting import format_context, format_cost, format_tokens

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
    # What the session has spent, in US dollars, once a priced request reported it (SPEC 27).
    cost_usd: reactive[float | None] = reactive(None)
    # The first line ``status_line.command`` printed, shown instead of the model, context and cost (SPEC 27).
    custom: reactive[Content | None] = reactive(None)

    def render(self) -> Content:
        if self.model_missing:
            model = Content.styled("no model configured (see above)", "bold $text-warning")
        else:
            model = Content.assemble((self.model or "no model", "bold"))
        if self.custom is not None:  # the user's own line stands for the model, the context and the cost
            model = self.custom
        if self.vim_mode:
            look = "bold $text-accent" if self.vim_mode == "normal" else "bold $text-success"
            model = Content.assemble((f"-- {self.vim_mode.upper()} --", look), "  ", model)
        if self.agents:
            model = Content.assemble(model, "  ·  ", (self.agents, "$text-accent"))
        if self.cost_usd and self.custom is None:  # a local model's free requests add nothing to read
            model = Content.assemble(model, "  ·  ", format_cost(self.cost_usd))
        shows_context = self.context_window and self.custom is None
        context = format_context(self.context_used, self.context_window) if shows_context else ""
        text, style = _STATE_LOOKS[self.state]
        state = Content.styled(text, style)
        if self.state != "working":
            return self._spread(Content.assemble(model, "  ·  context ", context) if context else model, state)
        # A narrow screen drops the least needed first: the word "context", the tokens streamed, the time, the
        # context; "esc to interrupt" goes last (the footer names Esc too).
        elapsed, tokens = self._elapsed(), self._streamed()
        fits: list[tuple[Content, list[str], bool]] = [
            (Content.assemble(model, "  ·  context ", context) if context else model, [elapsed, tokens], True),
            (Content.assemble(model, " · ", context) if context else model, [elapsed, tokens], True),
            (Content.assemble(model, " · ", context) if context else model, [elapsed], True),
            (Content.assemble(model, " · ", context) if context else model, [], True),
            (model, [], True),
            (model, [], False),
        ]
        for left, progress, hinted in fits:
            shown = [part for part in progress if part]
            right = Content.assemble(state, *shown)
            if hinted:
                right = Content.assemble(right, " · esc to interrupt" if shown else " esc to interrupt")
            if left.cell_length + right.cell_length + 2 <= self.size.width:
                break
        return self._spread(left, right)

    def _spread(self, left: Content, right: Content) -> Content:
        gap = max(self.size.width - left.cell_length - right.cell_length, 2)
        return Content.assemble(left, " " * gap, right)

    def _elapsed(self) -> str:
        if not self.elapsed_s:
            return ""
        minutes, seconds = divmod(self.elapsed_s, 60)
        return f" {minutes}m {seconds:02d}s" if minutes else f" {seconds}s"

    def _streamed(self) -> str:
        return f" · ↓ {format_tokens(self.streamed_tokens)} tokens" if self.streamed_tokens else ""
