"""The approval dialog (SPEC 5): the tool, its key argument, every reason it asks, the command or the diff an edit
would make, and what "always" would allow. y / n / a (this session) / p (this project, saved) or the buttons; t is
"no, and tell the model why" (a line to type the reason opens; Enter sends it with the refusal); Esc cancels the
whole task. A call that can only be allowed once (a risk reason) offers no "always".

At any size the reasons and every choice stay on screen: a long diff scrolls inside the room they leave, and the
dialog's own footer lists its keys.
"""

from __future__ import annotations

from typing import Literal

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Static

from coder_tui.bindings import bindings_for
from coder_tui.widgets.dialog_box import DialogBox
from coder_tui.widgets.diff_view import DiffView
from engine.interaction import ApprovalAnswer, ApprovalDecision, ApprovalRequest
from engine.record import record

ButtonVariant = Literal["default", "primary", "success", "warning", "error"]


@record
class Choice:
    """One button of the dialog: the decision it answers, its label (naming its key) and the row it sits in."""

    button_id: str
    label: str
    decision: ApprovalDecision
    variant: ButtonVariant
    row: Literal["allow", "refuse"]


# Allowing choices on the first row, refusing ones on the second: at 80 columns one row cannot hold them all.
CHOICES: tuple[Choice, ...] = (
    Choice("yes", "Yes (y)", ApprovalDecision.YES, "success", "allow"),
    Choice("always-button", "Always (a)", ApprovalDecision.ALWAYS, "primary", "allow"),
    Choice("always-project", "Always here (p)", ApprovalDecision.ALWAYS_PROJECT, "primary", "allow"),
    Choice("no", "No (n)", ApprovalDecision.NO, "error", "refuse"),
    Choice("explain", "No, tell it why (t)", ApprovalDecision.NO, "warning", "refuse"),
    Choice("cancel", "Cancel task (esc)", ApprovalDecision.CANCEL, "default", "refuse"),
)
_ALWAYS = (ApprovalDecision.ALWAYS, ApprovalDecision.ALWAYS_PROJECT)


def _looks_like_diff(text: str) -> bool:
    return text.startswith(("--- ", "diff ", "@@")) or "\n@@ " in text


class ApprovalScreen(ModalScreen[ApprovalDecision | ApprovalAnswer]):
    """Dismissed with the user's decision (an ``ApprovalAnswer`` when it carries a reason);
    ``ApprovalDecision.CANCEL`` on Esc."""

    DEFAULT_CSS = """
    ApprovalScreen {
        align: center middle;
        background: $background 60%;
    }
    ApprovalScreen > DialogBox {
        width: 90%;
        max-width: 110;
        padding: 0 1;
        border: thick $warning;
        background: $surface;
    }
    ApprovalScreen #title { text-style: bold; color: $text-warning; }
    ApprovalScreen #argument { text-style: bold; }
    ApprovalScreen #reasons { margin: 1 0 0 0; color: $text-warning; }
    ApprovalScreen #preview { height: auto; max-height: 16; margin: 1 0 0 0; background: $panel; }
    ApprovalScreen #preview > .command { padding: 0 1; }
    ApprovalScreen #always { margin: 1 0 0 0; color: $text-muted; }
    ApprovalScreen .choices { height: auto; margin: 1 0 0 0; }
    ApprovalScreen .choices.-refuse { margin: 0; }
    ApprovalScreen .choices > Button { min-width: 0; margin: 0 2 0 0; }
    ApprovalScreen #reason { display: none; margin: 1 0 0 0; }
    ApprovalScreen.-explaining #reason { display: block; }
    """

    BINDINGS = bindings_for("approval")

    def __init__(self, request: ApprovalRequest) -> None:
        super().__init__()
        self.request = request

    @property
    def choices(self) -> list[Choice]:
        """The choices this call offers: no "always" for a call that can only be allowed once."""
        once_only = self.request.always_scope is None
        return [choice for choice in CHOICES if not (once_only and choice.decision in _ALWAYS)]

    def compose(self) -> ComposeResult:
        request = self.request
        with DialogBox(id="dialog"):
            yield Static(Content(f"Allow {request.tool}?"), id="title")
            yield Static(Content(request.key_argument), id="argument")
            if request.reasons:
                reasons = "\n".join(f"• {reason}" for reason in request.reasons)
                yield Static(Content(f"Why it asks:\n{reasons}"), id="reasons")
            preview = request.preview
            if preview and preview.strip() != request.key_argument.strip():
                with VerticalScroll(id="preview", classes="-flexible"):
                    if _looks_like_diff(preview):
                        yield DiffView(preview)
                    else:
                        yield Static(Content(preview), classes="command")
            if request.always_scope is not None:
                always = (
                    f"Always allows: {request.always_scope} "
                    "(a: for this session; p: in this project, saved to .coder/config.json)"
                )
            else:
                always = "This call can only be allowed once."
            yield Static(Content(always), id="always")
            for row in ("allow", "refuse"):
                with Horizontal(classes=f"choices -{row}"):
                    for choice in self.choices:
                        if choice.row == row:
                            yield Button(choice.label, id=choice.button_id, variant=choice.variant, compact=True)
            yield Input(placeholder="Why not? What should it do instead? (Enter sends, Esc cancels the task)",
                        id="reason")
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one("#yes", Button).focus()

    def on_resize(self) -> None:
        self.query_one(DialogBox).fit()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # A choice the dialog does not offer is neither in the footer nor answered by its key.
        if action == "decide" and parameters:
            return ApprovalDecision(str(parameters[0])) in {choice.decision for choice in self.choices}
        return True

    def action_decide(self, decision: str) -> None:
        chosen = ApprovalDecision(decision)
        if chosen in {choice.decision for choice in self.choices}:
            self.dismiss(chosen)

    def action_explain(self) -> None:
        """"No, and tell the model why": the reason line opens; Enter sends the refusal with it."""
        self.add_class("-explaining")
        self.query_one("#reason", Input).focus()
        self.call_after_refresh(self.query_one(DialogBox).fit)

    @on(Input.Submitted, "#reason")
    def _explained(self, event: Input.Submitted) -> None:
        self.dismiss(ApprovalAnswer(ApprovalDecision.NO, event.value.strip() or None))

    def action_scroll_preview(self, pages: int) -> None:
        for preview in self.query("#preview").results(VerticalScroll):
            if pages < 0:
                preview.scroll_page_up(animate=False)
            else:
                preview.scroll_page_down(animate=False)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "explain":
            self.action_explain()
            return
        decisions = {choice.button_id: choice.decision for choice in CHOICES}
        self.dismiss(decisions.get(event.button.id or "", ApprovalDecision.CANCEL))
