"""The bottom line: Textual's footer of the bindings in force (the mode is on the prompt line, shown once)."""

from __future__ import annotations

from textual.widgets import Footer


class FooterBar(Footer):
    """Docked at the bottom; bindings come from the focused widget chain."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(show_command_palette=False, id=id)
