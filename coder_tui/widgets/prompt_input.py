"""The input line (SPEC 15): Enter submits, Ctrl+J / Shift+Enter insert a newline, Up/Down walk the history,
Tab completes, Esc closes suggestions and twice clears, Ctrl+D on an empty input exits, Home/End on an empty input
leave the transcript's top and bottom to the screen; a large paste shows as one token (``pasted_texts``).

A ``TextArea`` so a multi-line paste stays one input; completion itself lives in the ``Prompt`` around it, which
this widget asks through the small ``Completer`` interface (attributes flow down, messages bubble up).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from textual import events
from textual.actions import SkipAction
from textual.message import Message

from coder_tui.input.bindings import bindings_for
from coder_tui.input.history import InputHistory
from coder_tui.input.pasted_texts import PastedTexts
from coder_tui.link.terminal_text import terminal_text
from coder_tui.input.text_area import TextArea
from coder_tui.input.vim import VimKeys


class Completer(Protocol):
    @property
    def completion_open(self) -> bool: ...

    def move_completion(self, delta: int) -> None: ...

    def accept_completion(self) -> bool: ...

    def close_completion(self) -> None: ...

    def request_completion(self) -> None: ...


class PromptInput(TextArea):
    """The text the user is writing. Posts ``Submitted``; the screen decides whether it runs now or is queued."""

    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 1;
        max-height: 10;
        padding: 0 1;
        background: transparent;
        &:focus { background: transparent; }
    }
    """

    BINDINGS = bindings_for("prompt")

    @dataclass
    class Submitted(Message):
        text: str

    @dataclass
    class VimModeChanged(Message):
        """The vim mode shown in the status line: "normal", "insert", or "" (vim keys off)."""

        mode: str

    class RewindRequested(Message):
        """Esc twice on an empty input (Claude Code's gesture): open the ``/rewind`` picker."""

    def __init__(self, completer: Completer, history: InputHistory, *, id: str | None = None) -> None:
        super().__init__(
            id=id,
            compact=True,
            soft_wrap=True,
            tab_behavior="focus",
            highlight_cursor_line=False,
            placeholder="Ask, !run a command, /command, @mention a file",
        )
        self.completer = completer
        self.input_history = history
        # Set by the session screen: while a task runs, Esc belongs to "interrupt".
        self.task_running = False
        self._escape_armed = False
        self._rewind_armed = False
        # Vim keys (``/vim``): None while off.
        self.vim: VimKeys | None = None
        self.pastes = PastedTexts()

    def set_vim(self, enabled: bool) -> None:
        """Vim keys on (starting in insert mode, as a new prompt does) or off."""
        self.vim = VimKeys() if enabled else None
        self.post_message(self.VimModeChanged(self.vim.mode if self.vim else ""))

    def _vim_key(self, event: events.Key) -> bool:
        """Vim's answer to the key, applied; False when the key is left to the prompt."""
        vim = self.vim
        if vim is None or self.completer.completion_open:
            return False
        document = self.document
        cursor = document.get_index_from_location(self.cursor_location)
        before = vim.mode
        outcome = vim.key(event.key, event.character, self.text, cursor)
        if vim.mode != before:
            self.post_message(self.VimModeChanged(vim.mode))
        if not outcome.handled:
            return False
        if outcome.undo:
            self.undo()
        if outcome.edit is not None:
            edit = outcome.edit
            start, end = document.get_location_from_index(edit.start), document.get_location_from_index(edit.end)
            self.replace(edit.insert, start, end)
            self.move_cursor(self.document.get_location_from_index(edit.cursor))
        if outcome.cursor is not None:
            self.move_cursor(self.document.get_location_from_index(outcome.cursor))
        return True

    def _on_paste(self, event: events.Paste) -> None:
        # A paste is outside text (SPEC 25): its controls would be drawn raw by the text area. A terminal sends a
        # pasted line break as \r. Textual calls each class's handler along the MRO, this one first: the text
        # area's own then inserts the cleaned text.
        # A large one goes in as its token.
        event.text = self.pastes.fold(terminal_text(event.text.replace("\r\n", "\n").replace("\r", "\n")))

    async def _on_key(self, event: events.Key) -> None:
        # Enter is handled here, in the prompt's own queue, not as a priority binding: a priority binding runs
        # when the key arrives at the app, ahead of keys typed just before it that the prompt has not inserted
        # yet, so a fast "abc⏎" would send an empty input. (TextArea would otherwise insert a newline.)
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.action_submit()
            return
        if self._vim_key(event):
            event.stop()
            event.prevent_default()
            return
        # The same holds for every key bound on the prompt itself (its own and TextArea's: Ctrl+J, Backspace, the
        # arrows...): left to bubble up to the app, whose bindings run there, it would apply after the keys typed
        # behind it (a fast "abc" Ctrl+J "def" gave "abcdef" and then the newline). So it runs here, in order. A
        # binding that skips (Esc while a task runs) bubbles on to the screen's and the app's.
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                event.stop()
                event.prevent_default()
                return
        await super()._on_key(event)

    def set_text(self, text: str) -> None:
        """Replaces the input and puts the cursor at its end."""
        self.load_text(text)
        self.move_cursor(self.document.end)

    def on_text_area_changed(self) -> None:
        self._escape_armed = False
        self._rewind_armed = False
        if self.pastes:
            self.pastes.keep_shown(self.text)

    def action_delete_left(self) -> None:
        if not self._delete_paste_token(before=True):
            super().action_delete_left()

    def action_delete_right(self) -> None:
        if not self._delete_paste_token(before=False):
            super().action_delete_right()

    def _delete_paste_token(self, *, before: bool) -> bool:
        """Backspace or Delete at a paste's token removes the whole token (and the paste)."""
        if not self.selection.is_empty:
            return False
        row, column = self.cursor_location
        span = self.pastes.token_at(self.document.get_line(row), column, before=before)
        if span is None:
            return False
        self.delete((row, span[0]), (row, span[1]))
        self.move_cursor((row, span[0]))
        return True

    def action_submit(self) -> None:
        if self.completer.completion_open and self.completer.accept_completion():
            return
        self.completer.close_completion()
        text = self.pastes.expand(self.text)
        if not text.strip():
            return
        self.input_history.add(text)
        self.clear()
        self.pastes.clear()
        if self.vim is not None and self.vim.mode != "insert":
            self.vim.mode = "insert"  # a new input starts in insert mode
            self.post_message(self.VimModeChanged("insert"))
        self.post_message(self.Submitted(text))

    def action_newline(self) -> None:
        self.insert("\n")

    def action_complete(self) -> None:
        self.completer.request_completion()

    def action_history_previous(self) -> None:
        if self.completer.completion_open:
            self.completer.move_completion(-1)
        elif self.input_history.walking or self.cursor_at_first_line:
            entry = self.input_history.previous(self.text)
            if entry is not None:
                self.set_text(entry)
        else:
            self.action_cursor_up()

    def action_history_next(self) -> None:
        if self.completer.completion_open:
            self.completer.move_completion(+1)
        elif self.input_history.walking and self.cursor_at_last_line:
            entry = self.input_history.next()
            if entry is not None:
                self.set_text(entry)
        else:
            self.action_cursor_down()

    def action_escape(self) -> None:
        if self.completer.completion_open:
            self.completer.close_completion()
        elif self.task_running:
            raise SkipAction()  # the app's Esc interrupts the task
        elif self._escape_armed:
            self.clear()
            self.input_history.reset()
            self._escape_armed = False
        elif self.text:
            self._escape_armed = True
            self.notify("Press Esc again to clear the input", timeout=2)
        elif self._rewind_armed:
            self._rewind_armed = False
            self.post_message(self.RewindRequested())
        else:
            self._rewind_armed = True
            self.notify("Press Esc again to rewind to an earlier request", timeout=2)

    def action_show_keys(self) -> None:
        """``?`` on an empty input: the keys overlay (elsewhere ``?`` is text)."""
        if self.text:
            raise SkipAction()
        from coder_tui.screens.keys_overlay import KeysOverlay

        self.app.push_screen(KeysOverlay())

    def action_home_or_top(self) -> None:
        if not self.text:
            raise SkipAction()  # the screen's Home: the top of the transcript
        self.action_cursor_line_start()

    def action_end_or_bottom(self) -> None:
        if not self.text:
            raise SkipAction()  # the screen's End: the bottom of the transcript
        self.action_cursor_line_end()

    def action_edit_in_editor(self) -> None:
        """Ctrl+G: the input opens in the user's editor; what it saves comes back."""
        from textual.app import SuspendNotSupported

        from coder_tui.input.external_editor import EditorError, edit_text

        try:
            with self.app.suspend():
                edited = edit_text(self.pastes.expand(self.text))
        except SuspendNotSupported:
            self.notify("this terminal cannot hand itself to an editor", severity="warning")
            return
        except EditorError as exc:
            self.notify(str(exc), severity="error", timeout=6)
            return
        self.set_text(edited)

    def action_search_history(self) -> None:
        """Ctrl+R: search the input history; the chosen input replaces the prompt's text."""
        from coder_tui.screens.history_search import HistorySearchScreen

        def chosen(entry: str | None) -> None:
            if entry is not None:
                self.set_text(entry)
            self.focus()

        self.app.push_screen(HistorySearchScreen(self.input_history.entries, self.text), callback=chosen)

    def action_exit_if_empty(self) -> None:
        if self.text:
            self.action_delete_right()
        else:
            self.app.leave()  # type: ignore[attr-defined]
