"""The folder-trust dialog (SPEC 19): "Trust this folder?", showing the keys of its own config that stay ignored
unless it is trusted. t / d or the buttons, both remembered by the engine; Esc answers "later". The key list
scrolls in the room the rest leaves, so every choice stays on screen; the dialog's footer lists its keys."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from coder_tui.input.bindings import bindings_for
from coder_tui.widgets.dialog_box import DialogBox
from engine.interaction import TrustDecision, TrustRequest


class TrustScreen(ModalScreen[TrustDecision]):
    DEFAULT_CSS = """
    TrustScreen {
        align: center middle;
        background: $background 60%;
    }
    TrustScreen > DialogBox {
        width: 90%;
        max-width: 100;
        padding: 0 1;
        border: thick $warning;
        background: $surface;
    }
    TrustScreen #title { text-style: bold; color: $text-warning; }
    TrustScreen #folder { text-style: bold; }
    TrustScreen #sets { margin: 1 0 0 0; }
    TrustScreen #keys { height: auto; max-height: 12; }
    TrustScreen #explain { margin: 1 0 0 0; color: $text-muted; }
    TrustScreen #buttons { height: auto; margin: 1 0 0 0; }
    TrustScreen #buttons > Button { min-width: 0; margin: 0 2 0 0; }
    """

    BINDINGS = bindings_for("trust")

    def __init__(self, request: TrustRequest) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        request = self.request
        keys = "\n".join(f"• {key}" for key in request.keys)
        with DialogBox(id="dialog"):
            yield Static(Content("Trust this folder?"), id="title")
            yield Static(Content(request.folder), id="folder")
            yield Static(
                Content(f"Its {request.config_file} sets keys that change what runs or where data goes:"), id="sets"
            )
            with VerticalScroll(id="keys", classes="-flexible"):
                yield Static(Content(keys))
            yield Static(
                Content(
                    "Until you trust it they are ignored. Trust only a folder whose config you wrote or checked; "
                    "the answer is remembered (change it with /trust on|off)."
                ),
                id="explain",
            )
            with Horizontal(id="buttons"):
                yield Button("Trust (t)", id="trust", variant="warning", compact=True)
                yield Button("Don't trust (d)", id="dont_trust", variant="primary", compact=True)
                yield Button("Later (esc)", id="later", compact=True)
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one("#dont_trust", Button).focus()

    def on_resize(self) -> None:
        self.query_one(DialogBox).fit()

    def action_decide(self, decision: str) -> None:
        self.dismiss(TrustDecision(decision))

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(TrustDecision(event.button.id or "later"))
