"""Rows of columns in the transcript (``/help``, ``/tools``, ``/permissions``): each cell wraps under its own column.

One widget draws every row (a grid of ``Static`` cells would put hundreds of widgets in the transcript for one
``/help``). Columns that do not wrap are as wide as their widest cell; the wrapping ones share the room left, in
proportion to their widest cells. When even that does not fit, every column shares the width.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget

from engine.record import record

GAP = 2
# A wrapping column narrower than this reads as a column of fragments: the other columns give up room first.
MIN_WRAPPING_WIDTH = 16


@record
class Column:
    """How one column looks: its style, and whether its cells wrap (the long text of a row)."""

    style: str = "$foreground"
    wrap: bool = False


@record
class TableSection:
    """A titled block of rows (the title may be empty); every row has one cell per column."""

    title: str
    columns: tuple[Column, ...]
    rows: tuple[tuple[str, ...], ...]
    indent: int = 2


def column_widths(section: TableSection, width: int) -> list[int]:
    """Each column's width for a line of ``width`` cells (gaps and indent left out)."""
    columns = section.columns
    natural = [max((len(row[index]) for row in section.rows), default=0) or 1 for index in range(len(columns))]
    room = max(width - section.indent - GAP * (len(columns) - 1), len(columns))
    if sum(natural) <= room:
        return natural
    wrapping = [index for index, column in enumerate(columns) if column.wrap] or [len(columns) - 1]
    fixed = [index for index in range(len(columns)) if index not in wrapping]
    # The wrapping columns get what the others leave, and at least their minimum: then the others give up room.
    wrapping_room = max(room - sum(natural[index] for index in fixed),
                        min(MIN_WRAPPING_WIDTH * len(wrapping), sum(natural[index] for index in wrapping)))
    wrapping_room = min(wrapping_room, room - len(fixed))
    fixed_room = room - wrapping_room
    widths = list(natural)
    for indexes, share_room in ((wrapping, wrapping_room), (fixed, fixed_room)):
        for index, share in zip(indexes, _share(share_room, [natural[index] for index in indexes]), strict=True):
            widths[index] = share
    return widths


def _share(room: int, wanted: Sequence[int]) -> list[int]:
    """``room`` split in proportion to ``wanted``, never more than wanted, at least one cell each."""
    total = sum(wanted)
    if total <= room:
        return list(wanted)
    shares = [max(1, room * size // total) for size in wanted]
    spare = room - sum(shares)
    for index in sorted(range(len(wanted)), key=lambda i: wanted[i] - shares[i], reverse=True):
        if spare <= 0:
            break
        if shares[index] < wanted[index]:
            shares[index] += 1
            spare -= 1
    return shares


def section_lines(section: TableSection, width: int) -> list[Content]:
    """The section drawn ``width`` cells wide: its title, then every row, each cell wrapped in its column."""
    lines: list[Content] = [Content.styled(section.title, "bold $text-primary")] if section.title else []
    widths = column_widths(section, width)
    margin = " " * section.indent
    for row in section.rows:
        cells = [
            Content.styled(text, column.style).wrap(size) or [Content("")]
            for text, column, size in zip(row, section.columns, widths, strict=True)
        ]
        for line_number in range(max(len(cell) for cell in cells)):
            # Text is always styled and the space between unstyled, so a run of text never starts with spaces.
            parts: list[Content | str] = [margin]
            for index, (cell, size) in enumerate(zip(cells, widths, strict=True)):
                piece = cell[line_number] if line_number < len(cell) else Content("")
                parts.append(piece)
                if index < len(cells) - 1:
                    parts.append(" " * (size - piece.cell_length + GAP))
            lines.append(Content.assemble(*parts).rstrip())
    return lines


class TableView(Widget):
    """Sections of rows, laid out anew for the width the widget gets (the side panes, a resize)."""

    DEFAULT_CSS = """
    TableView {
        height: auto;
    }
    """

    def __init__(self, sections: Sequence[TableSection], *, id: str | None = None, classes: str = "") -> None:
        super().__init__(id=id, classes=classes)
        self.sections = tuple(sections)
        self._drawn: tuple[int, list[Content]] | None = None

    def show_sections(self, sections: Sequence[TableSection]) -> None:
        """Draws ``sections`` instead of the ones it shows."""
        self.sections = tuple(sections)
        self._drawn = None
        self.refresh(layout=True)

    def lines(self, width: int) -> list[Content]:
        if self._drawn is None or self._drawn[0] != width:
            lines: list[Content] = []
            for number, section in enumerate(self.sections):
                if number:
                    lines.append(Content(""))
                lines.extend(section_lines(section, width))
            self._drawn = (width, lines)
        return self._drawn[1]

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines(width))

    def render(self) -> Content:
        return Content("\n").join(self.lines(self.size.width))
