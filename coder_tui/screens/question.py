"""The question dialog for the ``question`` tool: Select (options), Confirm (yes/no) or Input (with validation).

Esc dismisses it as cancelled, which cancels the task like Esc in the approval dialog. A long list of options
scrolls inside the room the question and the answer field leave, and the dialog's footer lists its keys.
"""

from __future__ import annotations

from typing import Literal

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import ModalScreen
from textual.validation import Length
from textual.widgets import Button, Footer, Input, OptionList, Static

from coder_tui.input.bindings import bindings_for
from coder_tui.widgets.dialog_box import DialogBox
from engine.interaction import QuestionAnswer, QuestionRequest

QuestionKind = Literal["select", "confirm", "input"]


def question_kind(request: QuestionRequest) -> QuestionKind:
    """Yes/no options with no free text make a Confirm; other options a Select; none an Input."""
    if {option.strip().lower() for option in request.options} == {"yes", "no"} and not request.allow_input:
        return "confirm"
    return "select" if request.options else "input"


class QuestionScreen(ModalScreen[QuestionAnswer]):
    DEFAULT_CSS = """
    QuestionScreen {
        align: center middle;
        background: $background 60%;
    }
    QuestionScreen > DialogBox {
        width: 80%;
        max-width: 100;
        padding: 1 2;
        border: thick $primary;
        background: $surface;
    }
    QuestionScreen #question { text-style: bold; }
    QuestionScreen OptionList { height: auto; max-height: 12; margin: 1 0 0 0; }
    QuestionScreen Input { margin: 1 0 0 0; }
    QuestionScreen #hint { color: $text-muted; margin: 1 0 0 0; }
    QuestionScreen #buttons { height: auto; margin: 1 0 0 0; }
    QuestionScreen #buttons > Button { min-width: 0; margin: 0 2 0 0; }
    """

    BINDINGS = bindings_for("question")

    def __init__(self, request: QuestionRequest) -> None:
        super().__init__()
        self.request = request
        self.kind = question_kind(request)

    def compose(self) -> ComposeResult:
        request = self.request
        with DialogBox(id="dialog"):
            asked = request.question if request.agent is None else f"Agent {request.agent} asks: {request.question}"
            yield Static(Content(asked), id="question")
            if self.kind == "confirm":
                with Horizontal(id="buttons"):
                    yield Button("Yes", id="yes", variant="success", compact=True)
                    yield Button("No", id="no", variant="error", compact=True)
            else:
                if request.options:
                    yield OptionList(
                        *(f"{number}. {option}" if number < 10 else option
                          for number, option in enumerate(request.options, 1)),
                        id="options", classes="-flexible",
                    )
                if request.allow_input or not request.options:
                    placeholder = "or type your own answer" if request.options else "type your answer"
                    yield Input(placeholder=placeholder, validators=[Length(minimum=1)], id="answer")
            hint = "Enter or the option's number to answer" if request.options else "Enter to answer"
            yield Static(Content(f"{hint} · Esc cancels the task"), id="hint")
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        first = self.query("#options, #answer, #yes").first()
        first.focus()

    def on_resize(self) -> None:
        self.query_one(DialogBox).fit()

    def action_cancel(self) -> None:
        self.dismiss(QuestionAnswer(None, cancelled=True))

    def action_pick(self, number: int) -> None:
        """A number key picks that option (typed into the free-text answer, it is text: the input has it first)."""
        if self.kind == "confirm" or not 1 <= number <= len(self.request.options):
            return
        self.dismiss(QuestionAnswer(self.request.options[number - 1]))

    @on(OptionList.OptionSelected, "#options")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(QuestionAnswer(self.request.options[event.option_index]))

    @on(Input.Submitted, "#answer")
    def _submitted(self, event: Input.Submitted) -> None:
        if event.validation_result is not None and not event.validation_result.is_valid:
            self.query_one("#hint", Static).update(Content("An answer cannot be empty · Esc cancels the task"))
            return
        self.dismiss(QuestionAnswer(event.value.strip()))

    @on(Button.Pressed)
    def _confirmed(self, event: Button.Pressed) -> None:
        self.dismiss(QuestionAnswer("yes" if event.button.id == "yes" else "no"))
