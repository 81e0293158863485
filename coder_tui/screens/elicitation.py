"""The form an MCP server asks the user to fill in (elicitation, SPEC 22), built from its requested schema.

Each field of ``engine.mcp.elicitation.form_fields`` becomes a widget: text and numbers an ``Input`` (numbers typed
as such), a yes/no a ``Switch``, one choice a ``Select``, several a ``SelectionList``; its title (``*`` when
required) and description above it, and what is wrong with it below once the user sends. The values are checked by
the engine's ``form_content``, so the server gets exactly what the schema asks for. A URL request (nothing to fill
in) shows the address as plain text: the user opens it themselves and says whether they did.

Ctrl+S (or Enter in a field) sends, Ctrl+N declines, Esc dismisses (the server hears "cancel"; the task goes on).
Everything the server wrote is shown as text, never as markup or terminal controls.
"""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Footer, Input, Select, SelectionList, Static, Switch

from coder_tui.input.bindings import bindings_for
from coder_tui.widgets.dialog_box import DialogBox
from engine.interaction import ElicitationAnswer, ElicitationRequest
from engine.mcp.elicitation import FormField, SchemaError, form_content, form_fields


# Bidirectional overrides and isolates: they could make the text read other than it is.
_BIDI = {0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069}


def shown(text: str) -> Content:
    """The server's words as text: control characters and escape sequences shown visibly (ESC as ␛, other C0 as
    their control pictures, C1 and bidirectional controls as ⍰), newlines kept."""
    out = []
    for char in text:
        code = ord(char)
        if char == "\n":
            out.append(char)
        elif code == 0x1B:
            out.append("␛")
        elif code < 0x20 or code == 0x7F:
            out.append(chr(0x2400 + code) if code < 0x20 else "␡")
        elif 0x80 <= code < 0xA0 or code in _BIDI:
            out.append("⍰")
        else:
            out.append(char)
    return Content("".join(out))


class ElicitationScreen(ModalScreen[ElicitationAnswer]):
    DEFAULT_CSS = """
    ElicitationScreen {
        align: center middle;
        background: $background 60%;
    }
    ElicitationScreen > DialogBox {
        width: 80%;
        max-width: 100;
        padding: 1 2;
        border: thick $primary;
        background: $surface;
    }
    ElicitationScreen #title { text-style: bold; }
    ElicitationScreen #message { margin: 1 0 0 0; }
    ElicitationScreen #fields { height: auto; max-height: 30; margin: 1 0 0 0; }
    ElicitationScreen .label { margin: 1 0 0 0; text-style: bold; }
    ElicitationScreen #fields > .label:first-child { margin: 0; }
    ElicitationScreen .description { color: $text-muted; }
    ElicitationScreen .error { color: $error; height: auto; }
    ElicitationScreen .error:empty { display: none; }
    ElicitationScreen Input, ElicitationScreen Select { width: 1fr; background: $boost; }
    ElicitationScreen Switch { border: none; padding: 0; height: 1; }
    ElicitationScreen SelectionList { height: auto; max-height: 6; }
    ElicitationScreen #url { margin: 1 0 0 0; color: $accent; }
    ElicitationScreen #buttons { height: auto; margin: 1 0 0 0; }
    ElicitationScreen #buttons > Button { min-width: 0; margin: 0 2 0 0; }
    """

    BINDINGS = bindings_for("elicitation")

    def __init__(self, request: ElicitationRequest) -> None:
        super().__init__()
        self.request = request
        try:
            self.fields = [] if request.url else form_fields(request.schema)
            self.problem = ""
        except SchemaError as exc:
            self.fields, self.problem = [], str(exc)

    def compose(self) -> ComposeResult:
        request = self.request
        with DialogBox(id="dialog"):
            yield Static(shown(f"The MCP server {request.server} asks for your input"), id="title")
            yield Static(shown(request.message), id="message")
            if request.url:
                yield Static(shown(f"Open this address yourself: {request.url}"), id="url")
            elif self.problem:
                yield Static(shown(f"This form cannot be shown: {self.problem}"), classes="error")
            else:
                with VerticalScroll(id="fields", classes="-flexible"):
                    for field in self.fields:
                        yield from self._field_widgets(field)
            with Horizontal(id="buttons"):
                if not self.problem:
                    label = "I opened it" if request.url else "Send"
                    yield Button(label, id="send", variant="success", compact=True)
                yield Button("Decline", id="decline", variant="error", compact=True)
        yield Footer(show_command_palette=False)

    def _field_widgets(self, field: FormField) -> ComposeResult:
        yield Static(shown(field.label), classes="label")
        if field.description:
            yield Static(shown(field.description), classes="description")
        yield _input_for(field)
        yield Static("", id=f"error-{field.name}", classes="error")

    def on_mount(self) -> None:
        focusable = self.query("#fields Input, #fields Select, #fields Switch, #fields SelectionList, #send, #decline")
        if focusable:
            focusable.first().focus()

    def on_resize(self) -> None:
        self.query_one(DialogBox).fit()

    # -- answers ----------------------------------------------------------------------------------------------------
    def action_submit(self) -> None:
        if self.problem:
            return
        if self.request.url:
            self.dismiss(ElicitationAnswer("accept"))
            return
        content, errors = form_content(self.fields, self.values())
        for field in self.fields:
            self.query_one(f"#error-{field.name}", Static).update(Content(errors.get(field.name, "")))
        if errors:
            first = next(f for f in self.fields if f.name in errors)
            self.query_one(f"#field-{first.name}").focus()
            return
        self.dismiss(ElicitationAnswer("accept", content))

    def action_decline(self) -> None:
        self.dismiss(ElicitationAnswer("decline", reason="the user declined"))

    def action_cancel(self) -> None:
        self.dismiss(ElicitationAnswer("cancel"))

    def values(self) -> dict[str, Any]:
        """What is in each field now: text, a bool, the chosen value(s)."""
        values: dict[str, Any] = {}
        for field in self.fields:
            widget = self.query_one(f"#field-{field.name}")
            if isinstance(widget, Switch):
                values[field.name] = widget.value
            elif isinstance(widget, Select):
                values[field.name] = None if widget.is_blank() else widget.value
            elif isinstance(widget, SelectionList):
                values[field.name] = list(widget.selected)
            elif isinstance(widget, Input):
                values[field.name] = widget.value
        return values

    @on(Input.Submitted)
    def _entered(self) -> None:
        self.action_submit()

    @on(Button.Pressed, "#send")
    def _send(self) -> None:
        self.action_submit()

    @on(Button.Pressed, "#decline")
    def _decline(self) -> None:
        self.action_decline()


def _input_for(field: FormField) -> Widget:
    widget_id = f"field-{field.name}"
    default = field.default
    if field.kind == "boolean":
        return Switch(value=bool(default), id=widget_id)
    if field.kind == "choice":
        options = [(shown(label), value) for value, label in field.choices]
        chosen = str(default) if default is not None and str(default) in {v for v, _ in field.choices} else None
        return Select(options, value=chosen if chosen is not None else Select.BLANK, allow_blank=not field.required
                      or chosen is None, prompt="choose one", compact=True, id=widget_id)
    if field.kind == "multi":
        chosen = {str(v) for v in default} if isinstance(default, list) else set()
        return SelectionList[str](*((shown(label), value, value in chosen) for value, label in field.choices), id=widget_id)
    kind = {"integer": "integer", "number": "number"}.get(field.kind, "text")
    placeholder = field.format or ("a whole number" if kind == "integer" else "a number" if kind == "number" else "")
    return Input(value="" if default is None else str(default), type=kind, placeholder=placeholder,  # type: ignore[arg-type]
                 max_length=field.max_length or 0, compact=True, id=widget_id)
