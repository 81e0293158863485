"""Textual's text selection for widgets that serve pre-rendered lines through the line API.

Textual finds what the mouse is over from the ``offset`` each drawn segment carries (``Strip.apply_offsets``), asks
the widget for the text under a selection (``get_selection``), and tells it when to draw the highlight
(``selection_updated``, then ``text_selection`` at render time). A widget that draws its own lines has to do all
three, or a drag selects nothing and a copy puts the widget's name on the clipboard. These helpers do the line
work for such a widget: the plain text of its lines (what is copied) and a drawn line with the offsets and the
highlight in place.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.segment import Segment
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style as VisualStyle

from coder_tui.transcript.selection_look import selected_style


def lines_text(lines: Sequence[Sequence[Segment]]) -> str:
    """The lines as the user reads them: one per row, without the padding that fills each to the width."""
    return "\n".join("".join(segment.text for segment in line).rstrip() for line in lines)


def selectable_strip(
    segments: Sequence[Segment], width: int, y: int, selection: Selection | None, highlight: VisualStyle | None
) -> Strip:
    """Line ``y`` drawn with the offsets the selection needs, and with its selected span in ``highlight``."""
    span = selection.get_span(y) if selection is not None and highlight is not None else None
    if span is not None and highlight is not None:
        segments = _highlighted(segments, *span, highlight)
    return Strip(segments, width).apply_offsets(0, y)


def _highlighted(segments: Sequence[Segment], start: int, end: int, highlight: VisualStyle) -> list[Segment]:
    """``segments`` with the characters from ``start`` to ``end`` (-1: to the end of the line) in ``highlight``."""
    drawn: list[Segment] = []
    position = 0
    for text, style, control in segments:
        stop = position + len(text)
        last = stop if end == -1 else min(end, stop)
        first = max(start, position)
        if control is not None or first >= last:
            drawn.append(Segment(text, style, control))
        else:
            cut_first, cut_last = first - position, last - position
            if cut_first:
                drawn.append(Segment(text[:cut_first], style))
            drawn.append(Segment(text[cut_first:cut_last], selected_style(style, highlight)))
            if cut_last < len(text):
                drawn.append(Segment(text[cut_last:], style))
        position = stop
    return drawn
