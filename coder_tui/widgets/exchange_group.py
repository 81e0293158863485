"""One exchange in the transcript (an input and what followed it), or a resumed conversation's entries: the unit the
transcript arranges, prunes and builds again (``Transcript``)."""

from __future__ import annotations

from typing import Any

from textual.containers import VerticalGroup
from textual.widget import Widget

from coder_tui.widgets.sized_by_layout import SizedByLayout, UniformLines


class ExchangeGroup(SizedByLayout, UniformLines, VerticalGroup):
    """The entries of one exchange (an input and what followed it), or of a resumed conversation."""

    DEFAULT_CSS = """
    ExchangeGroup > .todos { margin: 1 0 0 2; border-left: vkey $accent 50%; }
    """

    def __init__(self, *entries: Widget, live: bool = False) -> None:
        """``entries``: mounted with the group, in one go (a resumed history's). ``live``: an exchange shown as it
        happens, whose messages are kept as the engine stored them (``records``), with the diffs its calls showed,
        so that once pruned it goes back to the transcript's history and is built again when scrolled up to."""
        super().__init__(*entries)
        self.entries: list[Widget] = list(entries)
        # None: the group cannot be rebuilt from records (a resumed history's, whose entries have factories of
        # their own, or a live one that lost some entries already).
        self.records: list[dict[str, Any]] | None = [] if live else None
        self.diffs: dict[str, str] = {}

    def history_entries(self) -> list[dict[str, Any]]:
        """The exchange as ``RestoredEntry`` dicts, as a resumed session's history carries it."""
        assert self.records is not None
        return [
            {"kind": "message", "record": record, "diff": self.diffs.get(record.get("tool_call_id") or "")}
            for record in self.records
        ]
