"""How selected text looks, legible in every colour count a terminal offers.

Textual draws a selection on ``$screen-selection-background`` (the theme's primary at half strength) and keeps the
text's own colour (``$screen-selection-foreground`` is transparent). In 24-bit colour that reads well; reduced to the
256-colour palette (tmux without ``COLORTERM``, macOS Terminal.app) or to the 16 ANSI colours, a dim or blue text
colour and the selection's background can become the same palette entry, and the selected text disappears. So
below 24-bit colour the selection's text takes the colour that contrasts with its background (off-white or off-black),
which never reduces to the background's entry.

Widgets that draw pre-rendered Rich lines (``MarkdownLines``) combine a selected cell's style here, as Textual's own
``Visual`` rendering does: the selection's background over the cell's, the cell's colour kept when the selection's is
transparent. Turning the selection's style into a Rich style first would lose that: a transparent colour becomes the
background's colour, and the text is drawn in the colour of its background.
"""

from __future__ import annotations

from functools import lru_cache

from rich.style import Style
from textual.color import Color
from textual.style import Style as VisualStyle

# Rich's names of the colour systems that hold fewer colours than the 24-bit one.
REDUCED_COLOUR_SYSTEMS = frozenset({"256", "standard", "windows"})


def with_legible_selection(variables: dict[str, str], colour_system: str | None) -> dict[str, str]:
    """The app's CSS variables, with the selection's text in the colour contrasting its background when the
    terminal shows fewer than 24-bit colours."""
    if colour_system not in REDUCED_COLOUR_SYSTEMS:
        return variables
    background = Color.parse(variables["background"]) + Color.parse(variables["screen-selection-background"])
    return {**variables, "screen-selection-foreground": background.get_contrast_text(1.0).hex}


@lru_cache(maxsize=512)
def selected_style(style: Style | None, selection: VisualStyle) -> Style:
    """A drawn cell's Rich ``style`` as it looks selected: ``selection``'s background over the cell's own, and
    ``selection``'s colour unless it is transparent (then the cell keeps its colour)."""
    return (VisualStyle.from_rich_style(style or Style()) + selection).rich_style
