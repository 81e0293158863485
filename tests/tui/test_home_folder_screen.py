"""Issue 40 (SPEC 13, decision of 2026-12-07): the full screen started in the home folder says it is not a project
and offers to continue read-only (plan mode) or to open a project folder; a folder that is home or above it again is
refused with the reason, and Esc quits."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder_tui.screens.home_folder import WorkspaceChoice
from coder_tui.launch.workspace_choice import WorkspaceChoiceApp
from engine.home_folder import home_workspace_problem
from tests.tui.helpers import SIZE_IDS, SIZES


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    (folder / "code" / "app").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(folder))
    return folder.resolve()


def choice_app(home: Path) -> WorkspaceChoiceApp:
    problem = home_workspace_problem(home)
    assert problem is not None
    return WorkspaceChoiceApp(home, problem)


async def test_read_only_continues_in_the_home_folder_in_plan_mode(home: Path) -> None:
    app = choice_app(home)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert "is your home folder" in str(app.screen.query_one("#problem").render())
        await pilot.press("p")
    assert app.return_value == WorkspaceChoice(home, read_only=True)


async def test_a_typed_project_folder_is_opened(home: Path) -> None:
    app = choice_app(home)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("o")
        await pilot.press(*"code/app", "enter")
    assert app.return_value == WorkspaceChoice(home / "code" / "app", read_only=False)


@pytest.mark.parametrize(("typed", "said"), [("~", "is your home folder"), ("..", "is above your home folder"),
                                             ("nowhere", "is not a folder")])
async def test_a_folder_that_cannot_be_a_workspace_is_refused_with_the_reason(
    home: Path, typed: str, said: str
) -> None:
    app = choice_app(home)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("o")
        await pilot.press(*typed, "enter")
        await pilot.pause()
        assert said in str(app.screen.query_one("#error").render())
        await pilot.press("escape")
    assert app.return_value is None


async def test_escape_quits(home: Path) -> None:
    app = choice_app(home)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
    assert app.return_value is None


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_home_folder_screen(snap_compare, size) -> None:
    app = WorkspaceChoiceApp(Path("/home/user"), "/home/user is your home folder")
    assert snap_compare(app, terminal_size=size)


@pytest.mark.parametrize(
    ("choice", "expected"),
    [(None, None), ("read-only", ("home", "plan")), ("project", ("project", "auto-edit"))],
)
def test_the_full_screen_starts_where_the_user_chose(
    home: Path, monkeypatch: pytest.MonkeyPatch, choice: str | None, expected: tuple[str, str] | None
) -> None:
    """``coder-tui`` in the home folder shows the choice before any engine starts, then starts the session in the
    folder chosen, read-only (plan mode) when the user kept the home folder."""
    import coder_tui.app
    import coder_tui.cli
    import coder_tui.link.engine_process
    import coder_tui.launch.workspace_choice

    project = home / "code" / "app"
    answers = {"read-only": WorkspaceChoice(home, read_only=True), "project": WorkspaceChoice(project, read_only=False)}
    started: list[tuple[Path, str | None]] = []
    monkeypatch.setattr(coder_tui.launch.workspace_choice, "choose_workspace", lambda folder, problem: answers.get(choice))
    monkeypatch.setattr(coder_tui.link.engine_process, "EngineProcesses", lambda **kw: started.append((kw["workspace"],
                                                                                                  kw["mode"])))
    monkeypatch.setattr(coder_tui.app, "run_tui", lambda **kw: 0)
    monkeypatch.setattr(coder_tui.cli, "prepare_ui_process", lambda: None)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("gc.disable", lambda: None)  # the full screen's start-up pause, not this test's
    code = coder_tui.cli.main(["--cwd", str(home), "--mode", "auto-edit"])
    if expected is None:
        assert code == 1 and started == []
    else:
        folders = {"home": home, "project": project}
        assert code == 0 and started == [(folders[expected[0]], expected[1])]
