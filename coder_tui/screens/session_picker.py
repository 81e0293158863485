"""The ``/resume`` picker (SPEC 7, issue 5 item 4): the recent sessions of the workspace, newest first, each with its
title (the first request), when it was last used ("today 09:31", "yesterday 18:02", "2026-11-19 14:05"), how
many messages it holds and, for one not made in the full screen, where it was (headless, editor). Ctrl+T hides
and shows the headless runs'. Enter resumes the highlighted one; Esc closes the list and nothing changes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from coder_tui.input.bindings import bindings_for
from coder_tui.transcript.formatting import one_line, session_details


def session_option(row: dict[str, Any], now: datetime, width: int = 72) -> Option:
    """Two lines: the title in bold, then time, message count and id, muted."""
    title = one_line(str(row.get("title") or "(untitled)"), width)
    prompt = Content.assemble((title, "bold"), "\n", (session_details(row, now), "$text-muted"))
    return Option(prompt, id=str(row["id"]))


class SessionPickerScreen(ModalScreen[str | None]):
    """Dismissed with the chosen session's id, or None."""

    DEFAULT_CSS = """
    SessionPickerScreen {
        align: center middle;
        background: $background 60%;
    }
    SessionPickerScreen > #dialog {
        width: 90%;
        max-width: 100;
        height: auto;
        max-height: 90%;
        padding: 1 2;
        border: thick $primary;
        background: $surface;
    }
    SessionPickerScreen #title { text-style: bold; }
    SessionPickerScreen OptionList { height: auto; max-height: 16; margin: 1 0 0 0; }
    SessionPickerScreen #hint { color: $text-muted; margin: 1 0 0 0; }
    """

    BINDINGS = bindings_for("picker")

    def __init__(self, sessions: Sequence[dict[str, Any]], now: datetime) -> None:
        super().__init__()
        self.sessions = list(sessions)
        self.now = now
        self.headless_hidden = False

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content("Resume which session?"), id="title")
            yield OptionList(*self._options(), id="sessions")
            yield Static(Content(self._hint()), id="hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_toggle_headless(self) -> None:
        self.headless_hidden = not self.headless_hidden
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._options())
        options.highlighted = 0 if options.option_count else None
        self.query_one("#hint", Static).update(Content(self._hint()))

    def _options(self) -> list[Option]:
        return [
            session_option(row, self.now) for row in self.sessions
            if not (self.headless_hidden and row.get("origin") == "headless")
        ]

    def _hint(self) -> str:
        hidden = sum(row.get("origin") == "headless" for row in self.sessions) if self.headless_hidden else 0
        plural = "" if hidden == 1 else "s"
        toggle = f"{hidden} headless run{plural} hidden (Ctrl+T shows)" if self.headless_hidden else "Ctrl+T hides headless runs"
        return f"Enter resumes the highlighted session · {toggle} · Esc closes"

    @on(OptionList.OptionSelected, "#sessions")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
