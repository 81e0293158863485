"""The prompt area: suggestions above, the prompt line (mode and directory), and the input.

It owns completion: slash commands (the engine's list) and fuzzy ``@path`` mentions over the workspace's files,
listed in a thread and matched in a thread so a large repository never stalls typing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import reactive

from coder_tui.input.completion import (
    Completion,
    Token,
    apply_completion,
    path_completions,
    slash_completions,
    token_at_cursor,
)
from coder_tui.input.history import InputHistory
from coder_tui.input.text_area import TextArea
from coder_tui.widgets.prompt_input import PromptInput
from coder_tui.widgets.prompt_line import PromptLine

if TYPE_CHECKING:
    from coder_tui.widgets.completion_list import CompletionList


class Prompt(Vertical):
    """Implements ``Completer`` for its ``PromptInput``."""

    DEFAULT_CSS = """
    Prompt {
        height: auto;
        border-top: solid $primary 40%;
        &.-mode-plan { border-top: solid $warning 60%; }
        &.-mode-auto-edit { border-top: solid $success 60%; }
        &.-mode-yolo { border-top: solid $error 70%; }
    }
    """

    # Its class (``-mode-default``) is given at construction: set on mount, it would restyle the prompt again.
    mode: reactive[str] = reactive("default", init=False)
    location: reactive[str] = reactive("")

    def __init__(self, workspace: Path, history: InputHistory, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="-mode-default")
        self.workspace = workspace
        self.slash_commands: list[tuple[str, str]] = []
        self._paths: list[str] | None = None
        # Mounted when the first completable token is typed: the first frame does without it.
        self._list: CompletionList | None = None
        self.input = PromptInput(self, history, id="prompt-input")

    def compose(self) -> ComposeResult:
        yield PromptLine().data_bind(Prompt.mode, Prompt.location)
        yield self.input

    def watch_mode(self, old: str, new: str) -> None:
        self.remove_class(f"-mode-{old}")
        self.add_class(f"-mode-{new}")

    def _completion_list(self) -> CompletionList:
        if self._list is None:
            from coder_tui.widgets.completion_list import CompletionList

            self._list = CompletionList()
            self.mount(self._list, before=0)
        return self._list

    # Completer ------------------------------------------------------------------------------------------------

    @property
    def completion_open(self) -> bool:
        return self._list is not None and self._list.is_open

    def move_completion(self, delta: int) -> None:
        if self._list is not None:
            self._list.move(delta)

    def close_completion(self) -> None:
        if self._list is not None:
            self._list.close()

    def accept_completion(self) -> bool:
        """Puts the highlighted suggestion in place of the token; False when that would change nothing."""
        if self._list is None:
            return False
        choice = self._list.selected
        token = self._token()
        self._list.close()
        if choice is None or token is None:
            return False
        row = self.input.cursor_location[0]
        line = self.input.document.get_line(row)
        if token.text == choice.value:
            return False
        replacement, column = apply_completion(line, token, choice)
        self.input.replace(replacement, (row, token.start), (row, token.end))
        self.input.move_cursor((row, column))
        return True

    def request_completion(self) -> None:
        """Tab: accept the highlighted suggestion, or look for suggestions now."""
        if self.completion_open:
            self.accept_completion()
        else:
            self._refresh(tab=True)

    # Suggestions while typing -----------------------------------------------------------------------------------

    @on(TextArea.Changed, "#prompt-input")
    def _text_changed(self) -> None:
        if self.input.input_history.walking:
            self.close_completion()
        else:
            self._refresh(tab=False)

    def _token(self) -> Token | None:
        row, column = self.input.cursor_location
        return token_at_cursor(self.input.document.get_line(row), column, first_line=row == 0)

    def _refresh(self, *, tab: bool) -> None:
        token = self._token()
        if token is None:
            self.close_completion()
            return
        self._completion_list()  # mounted while the suggestions are looked for
        if token.kind == "slash":
            self._offer(token, slash_completions(token.text, self.slash_commands), tab=tab)
        else:
            self._match_paths(token, tab=tab, rescan=self._paths is None or token.query == "")

    def _offer(self, token: Token, completions: Sequence[Completion], *, tab: bool) -> None:
        if self._token() != token:
            return  # the user typed on while we were matching
        self._completion_list().show(completions)
        if tab and len(completions) == 1:
            self.accept_completion()

    @work(thread=True, exclusive=True, group="path-completion")
    def _match_paths(self, token: Token, *, tab: bool, rescan: bool) -> None:
        if rescan:
            from coder_tui.input.file_index import list_workspace_paths

            self._paths = list_workspace_paths(self.workspace)
        completions = path_completions(token.query, self._paths or [])
        self.app.call_from_thread(self._offer, token, completions, tab=tab)
