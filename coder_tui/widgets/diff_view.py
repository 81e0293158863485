"""A unified diff, coloured: added lines green, removed red, hunk headers in the accent colour.

Used in the transcript (the whole diff, no click needed), in the tool-event log (capped) and in the approval dialog
(the diff an edit would make).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from textual.content import Content
from textual.widgets import Static

from coder_tui.widgets.sized_by_layout import SizedByLayout
from engine.counted import counted

_ADDED = "$text-success on $success-muted"
_REMOVED = "$text-error on $error-muted"
_HUNK = "bold $text-accent"
_FILE = "bold"


def diff_content(diff: str, max_lines: int | None = None) -> Content:
    """The diff as styled text; with ``max_lines`` the rest is summed up in one "… N more lines" line."""
    lines = diff.rstrip("\n").splitlines()
    shown = lines if max_lines is None else lines[:max_lines]
    parts: list[Content] = [Content.styled(line or " ", _line_style(line)) for line in shown]
    if len(shown) < len(lines):
        parts.append(Content.styled(f"… {counted(len(lines) - len(shown), 'more line')}", "dim italic"))
    return Content("\n").join(parts)


def diff_summary(header: str, files: Sequence[Mapping[str, Any]]) -> Content:
    """``/diff``'s summary: the header, then one row per file with its path, ``+added`` in green, ``-removed`` in
    red and its status."""
    width = max((len(str(f.get("path", ""))) for f in files), default=0)
    rows = [
        Content.assemble(
            "  ",
            (str(f.get("path", "")).ljust(width), "bold"),
            "  ",
            (f"+{f.get('added', 0)}", "$text-success"),
            " ",
            (f"-{f.get('removed', 0)}", "$text-error"),
            "  ",
            (f"{f.get('status', '')}{' (binary)' if f.get('binary') else ''}", "$text-muted"),
        )
        for f in files
    ]
    return Content("\n").join([Content(header), *rows])


def _line_style(line: str) -> str:
    if line.startswith(("+++", "---", "diff ", "index ")):
        return _FILE
    if line.startswith("@@"):
        return _HUNK
    if line.startswith("+"):
        return _ADDED
    if line.startswith("-"):
        return _REMOVED
    return ""


class DiffView(SizedByLayout, Static):
    """A read-only coloured diff."""

    DEFAULT_CSS = """
    DiffView {
        height: auto;
        padding: 0 1;
        background: $surface;
    }
    """

    def __init__(self, diff: str, *, max_lines: int | None = None, id: str | None = None, classes: str = "") -> None:
        super().__init__(diff_content(diff, max_lines), id=id, classes=classes)
        self.diff = diff
        self.max_lines = max_lines

    def set_diff(self, diff: str) -> None:
        self.diff = diff
        self.update(diff_content(diff, self.max_lines))
