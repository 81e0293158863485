"""The result of a ``!`` command (command, exit code, stdout, stderr) or a ``/`` command, in the transcript."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from coder_tui.formatting import bash_result_text, is_bash_result
from coder_tui.widgets.diff_view import DiffView
from engine.events import CommandResult


class CommandOutput(Vertical):
    """A command's result: its text (or a bang command's fixed structure) and any diff it carries."""

    DEFAULT_CSS = """
    CommandOutput {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        & > .text { height: auto; padding: 0 1; border-left: vkey $foreground 15%; }
        &.-failed > .text { color: $text-error; }
    }
    """

    def __init__(self, result: CommandResult) -> None:
        super().__init__(classes="" if result.ok else "-failed")
        self.result = result

    def compose(self) -> ComposeResult:
        result = self.result
        text = bash_result_text(result.data) if result.kind == "bang" and is_bash_result(result.data) else result.text
        if text:
            yield Static(Content(text.rstrip("\n")), classes="text")
        diff = result.data.get("diff")
        if isinstance(diff, str) and diff.strip():
            yield DiffView(diff)
