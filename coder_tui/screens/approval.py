"""The approval dialog (SPEC 5): the tool, its key argument (the command, or the diff an edit would make), every
reason it asks, and what "always" would allow. y / n / a (this session) / p (this project, saved) or the buttons;
Esc cancels the whole task. A call that can only be allowed once (a risk reason) offers no "always"."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from coder_tui.bindings import bindings_for
from coder_tui.widgets.diff_view import DiffView
from engine.interaction import ApprovalDecision, ApprovalRequest


def _looks_like_diff(text: str) -> bool:
    return text.startswith(("--- ", "diff ", "@@")) or "\n@@ " in text


class ApprovalScreen(ModalScreen[ApprovalDecision]):
    """Dismissed with the user's decision; ``ApprovalDecision.CANCEL`` on Esc."""

    DEFAULT_CSS = """
    ApprovalScreen {
        align: center middle;
        background: $background 60%;
    }
    ApprovalScreen > #dialog {
        width: 90%;
        max-width: 110;
        height: auto;
        max-height: 90%;
        padding: 1 2;
        border: thick $warning;
        background: $surface;
    }
    ApprovalScreen #title { text-style: bold; color: $text-warning; }
    ApprovalScreen #argument { margin: 1 0 0 0; text-style: bold; }
    ApprovalScreen #preview { height: auto; max-height: 16; margin: 1 0 0 0; background: $panel; }
    ApprovalScreen #preview > .command { padding: 0 1; }
    ApprovalScreen #reasons { margin: 1 0 0 0; color: $text-warning; }
    ApprovalScreen #always { margin: 1 0 0 0; color: $text-muted; }
    ApprovalScreen #buttons { height: auto; margin: 1 0 0 0; }
    ApprovalScreen #buttons > Button { min-width: 0; margin: 0 2 0 0; }
    """

    BINDINGS = bindings_for("approval")

    def __init__(self, request: ApprovalRequest) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="dialog"):
            yield Static(Content(f"Allow {request.tool}?"), id="title")
            yield Static(Content(request.key_argument), id="argument")
            preview = request.preview
            if preview and preview.strip() != request.key_argument.strip():
                with VerticalScroll(id="preview"):
                    if _looks_like_diff(preview):
                        yield DiffView(preview)
                    else:
                        yield Static(Content(preview), classes="command")
            if request.reasons:
                reasons = "\n".join(f"• {reason}" for reason in request.reasons)
                yield Static(Content(f"Why it asks:\n{reasons}"), id="reasons")
            if request.always_scope is not None:
                yield Static(
                    Content(
                        f"Always allows: {request.always_scope} (a: for this session; "
                        "p: in this project, saved to .coder/config.json)"
                    ),
                    id="always",
                )
            else:
                yield Static(Content("This call can only be allowed once."), id="always")
            with Horizontal(id="buttons"):
                yield Button("Yes (y)", id="yes", variant="success", compact=True)
                yield Button("No (n)", id="no", variant="error", compact=True)
                if request.always_scope is not None:
                    yield Button("Always (a)", id="always-button", variant="primary", compact=True)
                    yield Button("Always here (p)", id="always-project", variant="primary", compact=True)
                yield Button("Cancel task (esc)", id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()

    def action_decide(self, decision: str) -> None:
        chosen = ApprovalDecision(decision)
        if self.request.always_scope is None and chosen in (ApprovalDecision.ALWAYS, ApprovalDecision.ALWAYS_PROJECT):
            return  # nothing may be allowed always for this call; the dialog does not offer it
        self.dismiss(chosen)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        decisions = {
            "yes": ApprovalDecision.YES,
            "no": ApprovalDecision.NO,
            "always-button": ApprovalDecision.ALWAYS,
            "always-project": ApprovalDecision.ALWAYS_PROJECT,
            "cancel": ApprovalDecision.CANCEL,
        }
        self.dismiss(decisions[event.button.id or "cancel"])
