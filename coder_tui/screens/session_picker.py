"""The ``/resume`` picker (SPEC 7, SPEC 27): the sessions of the workspace, newest first, each with its title (the
first request, or the name ``/rename`` gave it), when it was last used ("today 09:31", "yesterday 18:02",
"2026-11-19 14:05") and how many messages it holds.

Typing searches every message of every session (the full-text index, ``engine.storage.session_search``): the list
narrows as you type, the matched words highlighted in the title and in the text around the newest match. Ctrl+A
adds the sessions of every other folder (after this folder's); Ctrl+R renames the highlighted session; a session not
made in the full screen says where it was (headless, editor), and Ctrl+T hides and shows the headless runs'. Enter
resumes the highlighted one; Esc closes the list and nothing changes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from coder_tui.input.bindings import bindings_for
from coder_tui.transcript.formatting import display_path, one_line, session_details
from engine.storage.session_search import MARK_END, MARK_START, SessionHit, known_folders, search_folders, word_pattern

MATCH_STYLE = "bold reverse"


def marked(text: str, words: str) -> Content:
    """``text`` with each word start that ``words`` matches highlighted."""
    pattern = word_pattern(words)
    if pattern is None:
        return Content(text)
    parts: list[str | tuple[str, str]] = []
    end = 0
    for match in pattern.finditer(text):
        parts.extend([text[end : match.start()], (match.group(0), MATCH_STYLE)])
        end = match.end()
    parts.append(text[end:])
    return Content.assemble(*parts)


def snippet_content(snippet: str) -> Content:
    """A search snippet with its marked words highlighted (the marks are control characters, never shown)."""
    parts: list[str | tuple[str, str]] = []
    for index, piece in enumerate(snippet.replace(MARK_END, MARK_START).split(MARK_START)):
        parts.append((piece, MATCH_STYLE) if index % 2 else piece)
    return Content.assemble(*parts)


def session_option(row: dict[str, Any], now: datetime, width: int = 72, words: str = "") -> Option:
    """Two lines: the title in bold, then time, message count and id (and the folder, for another folder's
    session), muted; under a search a third line: the text around the newest match."""
    title = marked(one_line(str(row.get("title") or "(untitled)"), width), words).stylize("bold")
    details = session_details(row, now)
    if row.get("folder"):
        details += f" · {display_path(Path(row['folder']))}"
    lines = [title, "\n", (details, "$text-muted")]
    if row.get("snippet"):
        lines.extend(["\n", snippet_content(one_line(str(row["snippet"]), width + 8)).stylize("italic")])
    return Option(Content.assemble(*lines), id=str(row["id"]))


def hit_row(hit: SessionHit, here: Path) -> dict[str, Any]:
    """A search hit as a picker row; ``folder`` is set only for another folder's session."""
    elsewhere = Path(hit.folder).resolve() != here.resolve()
    return {
        "id": hit.session_id, "title": hit.title, "updated_at": hit.updated_at, "message_count": hit.message_count,
        "snippet": hit.snippet, "folder": hit.folder if elsewhere else "",
    }


class SessionPickerScreen(ModalScreen[str | None]):
    """Dismissed with the chosen session's id, or None. ``workspace``: where to search (None: no search field);
    ``query``: what the search field starts with (``--resume "words"``); ``rename(session_id, title)``: what
    renaming a session does."""

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
    SessionPickerScreen Input { margin: 1 0 0 0; }
    SessionPickerScreen OptionList { height: auto; max-height: 16; margin: 1 0 0 0; }
    SessionPickerScreen #empty { color: $text-muted; margin: 1 0 0 0; }
    SessionPickerScreen #hint { color: $text-muted; margin: 1 0 0 0; }
    """

    BINDINGS = bindings_for("picker")

    def __init__(
        self,
        sessions: Sequence[dict[str, Any]],
        now: datetime,
        *,
        workspace: Path | None = None,
        query: str = "",
        rename: Callable[[str, str], None] | None = None,
    ) -> None:
        super().__init__()
        self.sessions = list(sessions)
        self.now = now
        self.workspace = workspace
        self.query_text = query
        self.rename = rename
        self.all_folders = False
        self.headless_hidden = False
        self.renaming: str | None = None  # the id of the session being renamed
        self.shown: list[dict[str, Any]] = list(sessions)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Content("Resume which session?"), id="title")
            if self.workspace is not None:
                yield Input(self.query_text, placeholder="type to search every message", id="query")
            yield OptionList(id="sessions")
            yield Static(Content("no session matches"), id="empty")
            yield Static(Content(self._hint()), id="hint")

    def on_mount(self) -> None:
        self._show(self.sessions, "")
        if self.workspace is None:
            self.query_one(OptionList).focus()
            return
        self.query_one("#query", Input).focus()
        if self.query_text:
            self._search(self.query_text)

    def _hint(self) -> str:
        hidden = sum(row.get("origin") == "headless" for row in self.sessions) if self.headless_hidden else 0
        headless = f"{hidden} headless hidden (^t shows)" if self.headless_hidden else "^t hides headless"
        if self.workspace is None:
            return f"Enter resumes the highlighted session · {headless} · Esc closes"
        scope = "this folder only" if self.all_folders else "all folders"
        return f"Enter resumes · ^a {scope} · ^r rename · {headless} · Esc closes"

    def action_toggle_headless(self) -> None:
        """Ctrl+T: hide or show the sessions of headless runs (-p)."""
        self.headless_hidden = not self.headless_hidden
        self.query_one("#hint", Static).update(Content(self._hint()))
        if self.workspace is None:
            self._show(self.sessions, "")
        else:
            self._search(self.query_text)

    # -- searching ---------------------------------------------------------------------------------------------------
    @on(Input.Changed, "#query")
    def _changed(self, event: Input.Changed) -> None:
        if self.renaming is None:
            self.query_text = event.value
            self._search(event.value)

    def _search(self, words: str) -> None:
        if not words.strip() and not self.all_folders:
            self._show(self.sessions, "")
            return
        self._run_search(words, self.all_folders)

    @work(thread=True, exclusive=True, group="session-search")
    def _run_search(self, words: str, all_folders: bool) -> None:
        assert self.workspace is not None
        others = known_folders() if all_folders else []
        hits, _ = search_folders(self.workspace, others, words)
        rows = [hit_row(hit, self.workspace) for hit in hits]
        self.app.call_from_thread(self._show, rows, words)

    def _show(self, rows: Sequence[dict[str, Any]], words: str) -> None:
        self.shown = [row for row in rows if not (self.headless_hidden and row.get("origin") == "headless")]
        listing = self.query_one("#sessions", OptionList)
        listing.set_options(session_option(row, self.now, words=words) for row in self.shown)
        listing.highlighted = 0 if self.shown else None
        listing.display = bool(self.shown)
        self.query_one("#empty").display = not self.shown

    def action_all_folders(self) -> None:
        """Ctrl+A: this folder's sessions, or every folder's (this one's first)."""
        if self.workspace is None:
            return
        self.all_folders = not self.all_folders
        self.query_one("#hint", Static).update(Content(self._hint()))
        self._search(self.query_text)

    def action_move(self, delta: int) -> None:
        listing = self.query_one("#sessions", OptionList)
        if self.shown:
            listing.highlighted = ((listing.highlighted or 0) + delta) % len(self.shown)

    # -- renaming ----------------------------------------------------------------------------------------------------
    def action_rename(self) -> None:
        """Ctrl+R: the search field becomes the highlighted session's title; Enter saves it, Esc leaves it."""
        row = self._highlighted()
        if row is None or self.workspace is None or self.rename is None:
            return
        if row.get("folder"):
            self.notify("that session is in another folder: rename it there", severity="warning")
            return
        self.renaming = str(row["id"])
        field = self.query_one("#query", Input)
        field.placeholder = "the session's new title"
        field.value = str(row.get("title") or "")
        self.query_one("#title", Static).update(Content("Rename the session (Enter saves · Esc leaves it)"))

    def _end_rename(self) -> None:
        self.renaming = None
        field = self.query_one("#query", Input)
        field.placeholder = "type to search every message"
        field.value = self.query_text
        self.query_one("#title", Static).update(Content("Resume which session?"))

    def _save_rename(self, title: str) -> None:
        session_id, title = self.renaming, " ".join(title.split())
        assert session_id is not None and self.rename is not None
        if title:
            self.rename(session_id, title)
            for row in (*self.sessions, *self.shown):
                if row["id"] == session_id:
                    row["title"] = title
        self._end_rename()
        self._show(self.shown, self.query_text)

    # -- choosing ----------------------------------------------------------------------------------------------------
    def _highlighted(self) -> dict[str, Any] | None:
        index = self.query_one("#sessions", OptionList).highlighted
        return self.shown[index] if self.shown and index is not None and index < len(self.shown) else None

    @on(Input.Submitted, "#query")
    def _submitted(self, event: Input.Submitted) -> None:
        if self.renaming is not None:
            self._save_rename(event.value)
            return
        row = self._highlighted()
        if row is not None:
            self._choose(row)

    @on(OptionList.OptionSelected, "#sessions")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self._choose(self.shown[event.option_index])

    def _choose(self, row: dict[str, Any]) -> None:
        if row.get("folder"):
            self.notify(
                f"that session is in {row['folder']}: resume it there with coder-tui --resume {row['id']}",
                timeout=10,
            )
            return
        self.dismiss(str(row["id"]))

    def action_close(self) -> None:
        if self.renaming is not None:
            self._end_rename()
            return
        self.dismiss(None)
