"""The ``/theme`` picker: with no name, ``/theme`` lists Textual's themes in the ``/model`` picker's shape; the
highlighted one is shown at once, Enter keeps it (saved in the user's config), Esc puts the theme back."""

from __future__ import annotations

from textual import on
from textual.widgets import OptionList

from coder_tui.screens.model_picker import ModelPickerScreen


class ThemePickerScreen(ModelPickerScreen):
    """Dismissed with the chosen theme's name, or None (the theme in force again)."""

    # Twenty-odd themes: the list scrolls, so the hint under it stays on a 24-line screen.
    DEFAULT_CSS = """
    ThemePickerScreen #dialog OptionList { max-height: 11; }
    """
    HINT = "↑↓ shows each theme · Enter keeps it (saved in your config) · Esc closes"

    def title_text(self) -> str:
        return f"Switch theme (now {self.current})"

    @on(OptionList.OptionHighlighted, "#models")
    def _preview(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id in self.app.available_themes:
            self.app.theme = event.option.id

    def action_close(self) -> None:
        self.app.theme = self.current
        super().action_close()
