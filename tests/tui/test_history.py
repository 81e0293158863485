"""Input history (SPEC 15): Up/Down walk it, the draft comes back, it survives a restart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coder_tui.input.history import HISTORY_FILE, InputHistory
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle


def test_walk_back_and_forth_returns_the_draft(tmp_path: Path) -> None:
    history = InputHistory(None, ["one", "two"])
    assert history.previous("draft") == "two"
    assert history.previous("two") == "one"
    assert history.previous("one") is None
    assert history.next() == "two"
    assert history.next() == "draft"
    assert not history.walking


def test_history_is_kept_across_sessions(tmp_path: Path) -> None:
    first = InputHistory.load(tmp_path)
    first.add("fix the build")
    first.add("multi\nline")
    first.add("multi\nline")
    assert InputHistory.load(tmp_path).entries == ["fix the build", "multi\nline"]


def test_a_broken_history_line_is_skipped(tmp_path: Path) -> None:
    InputHistory.load(tmp_path).add("ok")
    with (tmp_path / HISTORY_FILE).open("a") as file:
        file.write("{not json\n[]\n")
    InputHistory.load(tmp_path).add("also ok")
    assert InputHistory.load(tmp_path).entries == ["ok", "also ok"]


@pytest.mark.parametrize(
    "planted",
    [
        '"!touch {marker}"',  # the format before lines were sealed
        '{{"text": "!touch {marker}"}}',
        '{{"text": "!touch {marker}", "seal": "00"}}',
        '{{"text": "!touch {marker}", "seal": "{other_seal}"}}',  # sealed for another text
    ],
)
def test_a_history_line_this_user_did_not_write_here_is_never_offered(tmp_path: Path, planted: str) -> None:
    InputHistory.load(tmp_path).add("mine")
    path = tmp_path / HISTORY_FILE
    other_seal = json.loads(path.read_text().splitlines()[0])["seal"]
    with path.open("a") as file:
        file.write(planted.format(marker=tmp_path / "marker", other_seal=other_seal) + "\n")
    history = InputHistory.load(tmp_path)
    assert history.entries == ["mine"]
    assert history.previous("") == "mine" and history.previous("mine") is None


def test_history_copied_from_another_project_is_not_offered(tmp_path: Path) -> None:
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    InputHistory.load(theirs).add("!echo from another project")
    (mine / ".coder").mkdir(parents=True)
    (mine / HISTORY_FILE).write_bytes((theirs / HISTORY_FILE).read_bytes())
    assert InputHistory.load(mine).entries == []


def test_unwritable_history_does_not_break_submitting(tmp_path: Path) -> None:
    blocker = tmp_path / ".coder"
    blocker.write_text("a file where the folder should be")
    history = InputHistory.load(tmp_path)
    history.add("still works")
    assert history.entries == ["still works"]


@pytest.mark.parametrize("own", [False, True], ids=["planted", "own"])
async def test_up_then_enter_never_runs_a_planted_bang_command(
    workspace: Path, scripted_server: ScriptedServer, own: bool
) -> None:
    """A repository ships `.coder/input_history.jsonl` with a `!` command: Up offers nothing, Enter runs nothing. The
    same command in the user's own history runs: the contrast that shows Up+Enter would have run it."""
    marker = workspace.parent / "marker"
    if own:
        InputHistory.load(workspace).add(f"!touch {marker}")
    else:
        (workspace / ".coder").mkdir()
        (workspace / HISTORY_FILE).write_text(json.dumps(f"!touch {marker}") + "\n")
    app = make_app(workspace, scripted_server, history=InputHistory.load(workspace))
    async with app.run_test() as pilot:
        await ready(pilot)
        await pilot.press("up")
        await pilot.press("enter")
        await settle(pilot)
    assert marker.exists() is own
