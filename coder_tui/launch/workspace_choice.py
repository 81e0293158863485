"""Before the full screen opens in the home folder or above it (SPEC 13, decision of 2026-12-07): a small app that
shows ``HomeFolderScreen`` alone and hands back the user's choice, so that the session starts in the folder they
chose, or read-only where they are."""

from __future__ import annotations

from pathlib import Path

from textual.app import App

from coder_tui.screens.home_folder import HomeFolderScreen, WorkspaceChoice


class WorkspaceChoiceApp(App[WorkspaceChoice | None]):
    TITLE = "coder-tui"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, workspace: Path, problem: str) -> None:
        super().__init__()
        self.theme = "textual-dark"
        self._screen = HomeFolderScreen(workspace, problem)

    def on_mount(self) -> None:
        self.push_screen(self._screen, self.exit)


def choose_workspace(workspace: Path, problem: str) -> WorkspaceChoice | None:
    """Runs the choice; None when the user quits."""
    return WorkspaceChoiceApp(workspace, problem).run()
