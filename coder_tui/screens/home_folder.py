"""The home-folder screen (SPEC 13, decision of 2026-12-07): coder-tui was started in the home folder or above it,
which is never a workspace. It says so and offers to continue read-only (plan mode) or to open a project folder
typed in; Esc quits. Shown before the session starts, so no engine ever runs in the home folder but in plan mode."""

from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Static

from coder_tui.input.bindings import bindings_for
from coder_tui.widgets.dialog_box import DialogBox
from engine.home_folder import home_workspace_problem
from engine.record import record


@record
class WorkspaceChoice:
    """What the user chose: the folder to work in, and whether the session is read-only (plan mode)."""

    workspace: Path
    read_only: bool


class HomeFolderScreen(Screen[WorkspaceChoice | None]):
    DEFAULT_CSS = """
    HomeFolderScreen {
        align: center middle;
    }
    HomeFolderScreen > DialogBox {
        width: 90%;
        max-width: 100;
        padding: 0 1;
        border: thick $warning;
        background: $surface;
    }
    HomeFolderScreen #title { text-style: bold; color: $text-warning; }
    HomeFolderScreen #problem { text-style: bold; }
    HomeFolderScreen #explain { margin: 1 0 0 0; color: $text-muted; }
    HomeFolderScreen #folder { margin: 1 0 0 0; }
    HomeFolderScreen #error { color: $text-error; height: auto; }
    HomeFolderScreen #buttons { height: auto; margin: 1 0 0 0; }
    HomeFolderScreen #buttons > Button { min-width: 0; margin: 0 2 0 0; }
    """

    BINDINGS = bindings_for("home")

    def __init__(self, workspace: Path, problem: str) -> None:
        super().__init__()
        self.workspace = workspace
        self.problem = problem

    def compose(self) -> ComposeResult:
        with DialogBox(id="dialog"):
            yield Static(Content("This folder is not a project"), id="title")
            yield Static(Content(self.problem), id="problem")
            yield Static(
                Content(
                    "coder-tui works in a project folder. Here the model's files would be your shell's start-up "
                    "files, your keys and every other project, so it never changes files here. Continue read-only "
                    "(plan mode: it reads and answers), or open a project folder below your home folder."
                ),
                id="explain",
            )
            yield Input(placeholder="a project folder, e.g. ~/code/app (Enter opens it)", id="folder")
            yield Static(Content(""), id="error")
            with Horizontal(id="buttons"):
                yield Button("Read-only (p)", id="read_only", variant="primary", compact=True)
                yield Button("Open folder (o)", id="open_folder", compact=True)
                yield Button("Quit (esc)", id="quit", compact=True)
        yield Footer(show_command_palette=False)

    def on_mount(self) -> None:
        self.query_one("#read_only", Button).focus()

    def on_resize(self) -> None:
        self.query_one(DialogBox).fit()

    def action_read_only(self) -> None:
        self.dismiss(WorkspaceChoice(self.workspace, read_only=True))

    def action_open_folder(self) -> None:
        self.query_one("#folder", Input).focus()

    def action_quit(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#read_only")
    def _read_only_pressed(self) -> None:
        self.action_read_only()

    @on(Button.Pressed, "#open_folder")
    def _open_pressed(self) -> None:
        typed = self.query_one("#folder", Input).value
        if typed.strip():
            self._open(typed)
        else:
            self.action_open_folder()

    @on(Button.Pressed, "#quit")
    def _quit_pressed(self) -> None:
        self.action_quit()

    @on(Input.Submitted, "#folder")
    def _submitted(self, event: Input.Submitted) -> None:
        self._open(event.value)

    def _open(self, typed: str) -> None:
        """Opens the typed folder when it is a folder that may be a workspace; else says why and stays."""
        error = self.query_one("#error", Static)
        if not typed.strip():
            error.update(Content("type the folder to open"))
            return
        folder = (self.workspace / Path(typed.strip()).expanduser()).resolve()
        problem = home_workspace_problem(folder) if folder.is_dir() else f"{folder} is not a folder"
        if problem is not None:
            error.update(Content(f"{problem}: choose a project folder below your home folder"))
            return
        self.dismiss(WorkspaceChoice(folder, read_only=False))
