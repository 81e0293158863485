"""The model setup form (``/setup``, issue 43 item 9): the server's URL and the model, a "Test" that asks the server
for its models (``GET /models``), and "Save", which the engine writes to the user's own config (always trusted,
unlike a folder's ``.coder/config.json``). Esc closes it and nothing changes."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from coder_tui.input.bindings import bindings_for
from coder_tui.link.terminal_text import terminal_text
from coder_tui.widgets.dialog_box import DialogBox
from engine.provider.server_models import fetch_models


class SetupScreen(ModalScreen[tuple[str, str] | None]):
    """Dismissed with ``(url, model)`` to save (the model may be empty: the server's only one is then used), or
    None. ``api_key``: sent with the test, as the engine would send it."""

    DEFAULT_CSS = """
    SetupScreen { align: center middle; background: $background 60%; }
    SetupScreen > DialogBox {
        width: 90%; max-width: 90; padding: 0 1; border: thick $primary; background: $surface;
    }
    SetupScreen #title { text-style: bold; }
    SetupScreen .label { margin: 1 0 0 0; }
    SetupScreen #result { margin: 1 0 0 0; color: $text-muted; }
    SetupScreen #result.-failed { color: $text-error; }
    SetupScreen #buttons { height: auto; margin: 1 0 0 0; }
    SetupScreen #buttons > Button { min-width: 0; margin: 0 2 0 0; }
    """

    BINDINGS = bindings_for("setup")

    def __init__(self, url: str, model: str, config_file: str, api_key: str | None) -> None:
        super().__init__()
        self.url, self.model, self.config_file, self.api_key = url, model, config_file, api_key

    def compose(self) -> ComposeResult:
        with DialogBox(id="dialog"):
            yield Static(Content("Set up a model server"), id="title")
            yield Static(Content("Server URL (OpenAI-compatible, e.g. http://localhost:11434/v1 for Ollama)"),
                         classes="label")
            yield Input(self.url, placeholder="http://localhost:11434/v1", id="url", compact=True)
            yield Static(Content("Model (empty: the server's only model; Test lists them)"), classes="label")
            yield Input(self.model, placeholder="qwen3:8b", id="model", compact=True)
            yield Static(Content(f"Saved in your own config: {self.config_file}"), id="result")
            with Horizontal(id="buttons"):
                yield Button("Test", id="test", compact=True)
                yield Button("Save", id="save", variant="primary", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#url", Input).focus()

    def action_close(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted)
    def _next(self, event: Input.Submitted) -> None:
        if event.input.id == "url":
            self.query_one("#model", Input).focus()
        else:
            self._save()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "test":
            self._test(self.query_one("#url", Input).value.strip())
        elif event.button.id == "save":
            self._save()
        else:
            self.dismiss(None)

    def _save(self) -> None:
        url = self.query_one("#url", Input).value.strip()
        if not url.startswith(("http://", "https://")):
            self._say("the URL starts with http:// or https://", failed=True)
            return
        self.dismiss((url, self.query_one("#model", Input).value.strip()))

    @work(thread=True, exclusive=True)
    def _test(self, url: str) -> None:
        self.app.call_from_thread(self._say, f"asking {url}/models ...")
        try:
            models = fetch_models(url, self.api_key)
        except (OSError, ValueError) as exc:
            self.app.call_from_thread(self._say, f"the server did not answer: {exc}", True)
            return
        self.app.call_from_thread(self._tested, models)

    def _tested(self, models: list[str]) -> None:
        model = self.query_one("#model", Input)
        if len(models) == 1 and not model.value.strip():
            model.value = models[0]
        shown = ", ".join(models[:8]) + (", ..." if len(models) > 8 else "")
        missing = model.value.strip() and model.value.strip() not in models
        text = f"the server answers and lists {len(models)} model{'' if len(models) == 1 else 's'}: {shown or '-'}"
        self._say(text + (f" ({model.value.strip()} is not among them)" if missing else ""), failed=bool(missing))

    def _say(self, text: str, failed: bool = False) -> None:
        result = self.query_one("#result", Static)
        result.update(Content(terminal_text(text)))
        result.set_class(failed, "-failed")
