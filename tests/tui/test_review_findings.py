"""``/review``'s findings on screen (SPEC 27): listed in a picker after the review, file and line first; Enter opens
the file at that line in the editor (``$VISUAL``, the app suspended), Esc closes the list and the review stays in
the transcript."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from textual.pilot import Pilot

from coder_tui.screens.review_findings import ReviewFindingsScreen
from tests.support.scenario import reply, text
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, submit, wait_until
from tests.tui.test_editor_and_search_keys import suspendable  # noqa: F401 (fixture)

ANSWER = """## Findings
- src/app.py:2: [high] greet() concatenates a name that may be None; format it or check it first
- src/util.py:1: [medium] add() has no test for strings, which it now receives
## Summary
One likely crash, one gap in the tests."""


def changed_repository(workspace: Path) -> None:
    git = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "HOME": str(workspace), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "first"]):
        subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True, env=git)
    (workspace / "src" / "app.py").write_text('def greet(name):\n    return "Hello, " + name\n')


async def reviewed(pilot: Pilot[object], app) -> None:  # type: ignore[no-untyped-def]
    await ready(pilot)
    await submit(pilot, "/review")
    await wait_until(pilot, lambda: isinstance(app.screen, ReviewFindingsScreen), "the findings list")
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_findings_list(snap_compare, workspace: Path, scripted_server: ScriptedServer, size: tuple[int, int]) -> None:
    changed_repository(workspace)
    scripted_server.add(reply(text(ANSWER)))
    app = make_app(workspace, scripted_server)
    assert snap_compare(app, terminal_size=size, run_before=lambda pilot: reviewed(pilot, app))


async def test_enter_opens_the_file_at_the_line_in_the_editor(
    workspace: Path, scripted_server: ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    suspendable: list[str],
) -> None:
    changed_repository(workspace)
    opened = tmp_path / "opened.txt"
    editor = tmp_path / "editor.py"
    editor.write_text(f"import sys, pathlib\npathlib.Path({str(opened)!r}).write_text(' '.join(sys.argv[1:]))\n")
    monkeypatch.setenv("VISUAL", f"{sys.executable} {editor}")
    scripted_server.add(reply(text(ANSWER)))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await reviewed(pilot, app)
        await pilot.press("down", "enter")
        await wait_until(pilot, opened.exists, "the editor to run")
        assert opened.read_text() == f"+1 {workspace / 'src' / 'util.py'}"
        assert suspendable == ["suspend", "resume"]  # the terminal was the editor's meanwhile
        await pilot.press("escape")
        await settle(pilot)
        assert not isinstance(app.screen, ReviewFindingsScreen)
