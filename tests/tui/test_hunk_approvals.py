"""SPEC 5, per-hunk approvals through the dialog: ↑/↓ move between the hunks of a write, edit or patch, Space keeps
or drops the one under the cursor, the diff marks each; only the kept hunks are applied and the model's result names
each dropped hunk with its text and the reason typed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Button

from coder_tui.widgets.hunk_picker import Hunk
from engine.events import ToolStatus
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import SIZE_IDS, SIZES, make_app, ready, settle
from tests.tui.test_dialogs import assert_choices_on_screen, footer_keys, on_screen, run_until_approval, tool_statuses

OLD = "".join(f"line {n}\n" for n in range(1, 41))
# Three hunks: line 2 changed, line 20 removed, a line added after line 35.
NEW = OLD.replace("line 2\n", "line two\n").replace("line 20\n", "").replace("line 35\n", "line 35\nadded\n")


def tool_result(server: ScriptedServer) -> dict[str, object]:
    return json.loads(server.requests[-1].body["messages"][-1]["content"])


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_space_drops_the_hunk_under_the_cursor_and_only_kept_hunks_are_written(
    workspace: Path, scripted_server: ScriptedServer, size: tuple[int, int]
) -> None:
    (workspace / "f.txt").write_text(OLD)
    scripted_server.add(reply(tool_call("write", path="f.txt", content=NEW)), reply(text("noted")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        dialog = await run_until_approval(pilot, app, "rewrite f.txt")
        hunks = list(dialog.query(Hunk))
        assert [hunk.has_class("-cursor") for hunk in hunks] == [True, False, False]
        assert "space" in footer_keys(app)
        await pilot.press("down", "space")
        await pilot.pause()
        assert [hunk.kept for hunk in hunks] == [True, False, True]
        assert hunks[1].has_class("-cursor") and hunks[1].has_class("-dropped") and on_screen(app, hunks[1])
        assert "drop" in str(hunks[1].render())
        await pilot.press("space", "space")  # twice more: dropped again
        await pilot.pause()
        assert [hunk.kept for hunk in hunks] == [True, False, True]
        assert_choices_on_screen(app)
        await pilot.press("y")
        await settle(pilot)
    assert (workspace / "f.txt").read_text() == OLD.replace("line 2\n", "line two\n").replace(
        "line 35\n", "line 35\nadded\n"
    )
    result = tool_result(scripted_server)
    assert result["ok"] is True
    assert result["dropped_hunks"] == [
        {"file": "f.txt", "hunk": "1", "text": "@@ -17,7 +17,6 @@\n line 17\n line 18\n line 19\n-line 20\n line 21\n"
                                             " line 22\n line 23"}
    ]


async def test_t_with_some_hunks_dropped_applies_the_rest_and_the_model_reads_why(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    (workspace / "f.txt").write_text(OLD)
    scripted_server.add(reply(tool_call("write", path="f.txt", content=NEW)), reply(text("noted")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        dialog = await run_until_approval(pilot, app, "rewrite f.txt")
        await pilot.press("space")
        await pilot.pause()
        assert str(dialog.query_one("#explain", Button).label) == "Apply, say why (t)"
        await pilot.press("t", *"keep line 2 as it is", "enter")
        await settle(pilot)
        assert tool_statuses(app) == [ToolStatus.SUCCESS]
    assert (workspace / "f.txt").read_text() == OLD.replace("line 20\n", "").replace("line 35\n", "line 35\nadded\n")
    result = tool_result(scripted_server)
    assert result["user_says"] == "keep line 2 as it is"
    assert [(hunk["hunk"], "+line two" in hunk["text"]) for hunk in result["dropped_hunks"]] == [("0", True)]


async def test_dropping_every_hunk_refuses_the_call(workspace: Path, scripted_server: ScriptedServer) -> None:
    (workspace / "f.txt").write_text(OLD)
    scripted_server.add(reply(tool_call("write", path="f.txt", content=NEW)), reply(text("ok")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await run_until_approval(pilot, app, "rewrite f.txt")
        await pilot.press("space", "down", "space", "down", "space", "y")
        await settle(pilot)
        assert tool_statuses(app) == [ToolStatus.DENIED]
    assert (workspace / "f.txt").read_text() == OLD
    assert len(scripted_server.requests) == 1  # a refusal without a reason: the turn stopped


async def test_a_patch_applies_its_kept_hunks_across_files(workspace: Path, scripted_server: ScriptedServer) -> None:
    (workspace / "a.txt").write_text(OLD)
    (workspace / "gone.txt").write_text("bye\n")
    patch = (
        "*** Begin Patch\n*** Update File: a.txt\n@@\n line 1\n-line 2\n+line two\n line 3\n"
        "*** Add File: new.txt\n+fresh\n*** Delete File: gone.txt\n*** End Patch\n"
    )
    scripted_server.add(reply(tool_call("patch", patch=patch)), reply(text("ok")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        dialog = await run_until_approval(pilot, app, "patch it")
        assert len(dialog.query(Hunk)) == 3
        await pilot.press("down", "space", "y")  # drop the new file
        await settle(pilot)
    assert (workspace / "a.txt").read_text() == OLD.replace("line 2\n", "line two\n")
    assert not (workspace / "new.txt").exists() and not (workspace / "gone.txt").exists()
    assert [hunk["file"] for hunk in tool_result(scripted_server)["dropped_hunks"]] == ["new.txt"]


async def test_a_command_has_no_hunks_to_drop(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("bash", command="touch made.txt")), reply(text("ok")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        dialog = await run_until_approval(pilot, app, "make a file")
        assert not dialog.query(Hunk) and "space" not in footer_keys(app)
        await pilot.press("space", "y")
        await settle(pilot)
    assert (workspace / "made.txt").exists()
