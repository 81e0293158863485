"""Ctrl+F (SPEC 27): search the transcript. Typing finds the entries holding every word (any case) and shows the
newest; Up (or Enter) goes to the older match, Down to the newer, the transcript scrolled to it and the entry marked.
Past the oldest entry mounted, the older part of the conversation (a resumed history not built yet, or exchanges
pruned to keep the screen fast) is built, a batch at a time, until a match is found or nothing is left. The bar
shows the matched line with the words highlighted. Esc closes it, the view left at the match."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, Static

from coder_tui.input.bindings import bindings_for
from coder_tui.screens.session_picker import marked
from coder_tui.transcript.formatting import one_line
from coder_tui.widgets.transcript import Transcript
from engine.storage.session_search import word_pattern

FOUND_CLASS = "-found"


def entry_text(entry: Widget) -> str:
    """The text an entry shows, as far as a search needs it: a message's text, a tool call's tool, argument and
    output."""
    from coder_tui.widgets.tool_call_view import ToolCallView

    if isinstance(entry, ToolCallView):
        return f"{entry.tool} {entry.key_argument}\n{entry.output_text}"
    text = getattr(entry, "text", "")
    if isinstance(text, str) and text:
        return text
    result = getattr(entry, "result", None)  # a command's output
    return str(getattr(result, "text", "") or "")


def holds_words(text: str, words: list[str]) -> bool:
    lowered = text.lower()
    return all(word in lowered for word in words)


def matched_line(text: str, words: list[str]) -> str:
    """The first line of ``text`` that holds one of ``words``."""
    for line in text.splitlines():
        if any(word in line.lower() for word in words):
            return line.strip()
    return text.strip()


class TranscriptFindScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    TranscriptFindScreen {
        align: center bottom;
        background: $background 0%;
    }
    TranscriptFindScreen > #bar {
        width: 100%;
        height: auto;
        padding: 0 1;
        border-top: thick $primary;
        background: $surface;
    }
    TranscriptFindScreen #count { color: $text-muted; }
    """

    BINDINGS = bindings_for("find")

    def __init__(self, transcript: Transcript) -> None:
        super().__init__()
        self.transcript = transcript
        self.words: list[str] = []
        self.matches: list[Widget] = []
        self.current: Widget | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="bar"):
            yield Input(placeholder="find in the transcript (Up/Enter older · Down newer · Esc closes)", id="query")
            yield Static(Content(""), id="line")
            yield Static(Content(""), id="count")

    def on_mount(self) -> None:
        self.query_one("#query", Input).focus()

    @on(Input.Changed, "#query")
    def _changed(self, event: Input.Changed) -> None:
        self.words = event.value.lower().split()
        self._collect()
        self._go(self.matches[-1] if self.matches else None)

    @on(Input.Submitted, "#query")
    def _submitted(self) -> None:
        self.action_move(-1)

    def action_move(self, delta: int) -> None:
        if not self.words:
            return
        index = self.matches.index(self.current) if self.current in self.matches else len(self.matches)
        wanted = index + delta
        if wanted < 0:
            wanted += self._load_older_match()  # the older matches come before the ones there were
        if 0 <= wanted < len(self.matches):
            self._go(self.matches[wanted])
        else:
            self._show_count(at_edge=True)

    def action_close(self) -> None:
        self._mark(None)
        self.dismiss(None)

    def _collect(self) -> None:
        self.matches = [e for e in self.transcript.entries if self.words and holds_words(entry_text(e), self.words)]

    def _load_older_match(self) -> int:
        """Builds older entries, a batch at a time, until some of them match; how many do."""
        before = len(self.matches)
        while self.transcript.load_older() is not None:
            self._collect()
            if len(self.matches) > before:
                return len(self.matches) - before
        return 0

    def _go(self, entry: Widget | None) -> None:
        self._mark(entry)
        if entry is not None:
            self.transcript.call_after_refresh(self.transcript.scroll_to_widget, entry, animate=False)
            line = one_line(matched_line(entry_text(entry), self.words), max(self.size.width - 4, 20))
            self.query_one("#line", Static).update(marked(line, " ".join(self.words)))
        else:
            self.query_one("#line", Static).update(Content(""))
        self._show_count()

    def _mark(self, entry: Widget | None) -> None:
        if self.current is not None:
            self.current.remove_class(FOUND_CLASS)
        self.current = entry
        if entry is not None:
            entry.add_class(FOUND_CLASS)

    def _show_count(self, at_edge: bool = False) -> None:
        if not self.words:
            text = ""
        elif not self.matches:
            text = "no match" + (" (older entries are not shown)" if self.transcript.older_count else "")
        else:
            position = self.matches.index(self.current) + 1 if self.current in self.matches else 0
            text = f"{position} of {len(self.matches)}" + (" · no more that way" if at_edge else "")
        self.query_one("#count", Static).update(Content(text))
