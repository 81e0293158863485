"""The suggestion list above the prompt: slash commands or ``@path`` matches, never focused (typing goes on)."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from coder_tui.input.completion import Completion


class CompletionList(OptionList, can_focus=False):
    """Shown while there are suggestions; the prompt moves the highlight and accepts the highlighted one."""

    DEFAULT_CSS = """
    CompletionList {
        height: auto;
        max-height: 10;
        margin: 0 1;
        border: none;
        padding: 0;
        background: $panel;
        display: none;
        &.-visible { display: block; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.completions: tuple[Completion, ...] = ()

    @property
    def is_open(self) -> bool:
        return bool(self.completions)

    def show(self, completions: Sequence[Completion]) -> None:
        self.completions = tuple(completions)
        width = max((len(item.value) for item in self.completions), default=0)
        self.set_options(
            Option(Content.assemble((item.value.ljust(width), "bold"), ("  " + item.detail, "$text-muted")))
            for item in self.completions
        )
        self.highlighted = 0 if self.completions else None
        self.set_class(self.is_open, "-visible")

    def close(self) -> None:
        # Called on every keystroke: an already closed list must not refresh (a layout per key otherwise).
        if self.completions:
            self.show(())

    def move(self, delta: int) -> None:
        if self.completions:
            self.highlighted = ((self.highlighted or 0) + delta) % len(self.completions)

    @property
    def selected(self) -> Completion | None:
        if not self.completions or self.highlighted is None:
            return None
        return self.completions[self.highlighted]
