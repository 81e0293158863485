"""Snapshots of the session screen at 120x40 and 80x24 (SPEC 15, issue 3 item 10), driven by the engine talking
to the scripted server. Update with ``python -m pytest tests/tui --snapshot-update``; files live in snapshots/."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from coder_tui.screens.approval import ApprovalScreen
from coder_tui.screens.question import QuestionScreen
from tests.support.scenario import reasoning, reply, stall, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import SIZE_IDS, SIZES, make_app, ready, settle, submit, wait_until

pytestmark = pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)

CODE_ANSWER = (
    "Here is the function:\n\n```python\ndef add(a: int, b: int) -> int:\n    return a + b\n```\n\n"
    "Call it with **two numbers**."
)


def test_empty_start(snap_compare, workspace: Path, scripted_server: ScriptedServer, size) -> None:
    assert snap_compare(make_app(workspace, scripted_server), terminal_size=size, run_before=ready)


def test_streamed_answer_with_code_block(snap_compare, workspace: Path, scripted_server: ScriptedServer, size) -> None:
    scripted_server.add(reply(text(CODE_ANSWER), usage=(1200, 40)))

    async def run_before(pilot: Pilot[object]) -> None:
        await ready(pilot)
        await submit(pilot, "write an add function")
        await settle(pilot)

    assert snap_compare(make_app(workspace, scripted_server), terminal_size=size, run_before=run_before)


def test_reasoning_shown_dimmed(snap_compare, workspace: Path, scripted_server: ScriptedServer, size) -> None:
    scripted_server.add(
        reply(reasoning("The user wants the sum. Adding 2 and 2 gives 4; no tools needed."), text("It is **4**."))
    )

    async def run_before(pilot: Pilot[object]) -> None:
        await ready(pilot)
        await submit(pilot, "what is 2 + 2?")
        await settle(pilot)

    assert snap_compare(make_app(workspace, scripted_server), terminal_size=size, run_before=run_before)


def test_tool_call_with_its_diff(
    snap_compare, workspace: Path, scripted_server: ScriptedServer, size
) -> None:
    scripted_server.add(
        reply(tool_call("read", path="src/app.py")),
        reply(
            text("Switching to an f-string."),
            tool_call("edit", path="src/app.py", old_string='return "Hello " + name', new_string='return f"Hello {name}!"'),
        ),
        reply(text("Done: `greet` now uses an f-string.")),
    )

    async def run_before(pilot: Pilot[object]) -> None:
        await ready(pilot)
        await submit(pilot, "use an f-string in greet")
        await settle(pilot)

    app = make_app(workspace, scripted_server, start_mode="auto-edit")
    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_tool_event_log_with_mixed_states(
    snap_compare, workspace: Path, scripted_server: ScriptedServer, size
) -> None:
    scripted_server.add(
        reply(
            tool_call("read", path="src/util.py"),
            tool_call("read", path="src/missing.py"),
            tool_call("bash", command="rm -rf build"),
        ),
        reply(text("Understood, I left `build` alone.")),
    )

    async def run_before(pilot: Pilot[object]) -> None:
        app = await ready(pilot)
        await submit(pilot, "clean up the project")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval dialog")
        await pilot.press("n")
        await settle(pilot)
        app.session.panes_visible = True

    assert snap_compare(make_app(workspace, scripted_server), terminal_size=size, run_before=run_before)


def test_approval_modal_for_a_command(snap_compare, workspace: Path, scripted_server: ScriptedServer, size) -> None:
    scripted_server.add(reply(tool_call("bash", command="rm -rf build && make all")))

    async def run_before(pilot: Pilot[object]) -> None:
        app = await ready(pilot)
        await submit(pilot, "rebuild from scratch")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval dialog")
        await pilot.pause()

    assert snap_compare(make_app(workspace, scripted_server), terminal_size=size, run_before=run_before)


def test_approval_modal_for_an_edit_shows_the_diff(
    snap_compare, workspace: Path, scripted_server: ScriptedServer, size
) -> None:
    scripted_server.add(
        reply(tool_call("read", path="src/util.py")),
        reply(tool_call("edit", path="src/util.py", old_string="return a + b", new_string="return int(a) + int(b)")),
    )

    async def run_before(pilot: Pilot[object]) -> None:
        app = await ready(pilot)
        await submit(pilot, "make add accept strings")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval dialog")
        await pilot.pause()

    assert snap_compare(make_app(workspace, scripted_server), terminal_size=size, run_before=run_before)


def test_question_modal(snap_compare, workspace: Path, scripted_server: ScriptedServer, size) -> None:
    scripted_server.add(
        reply(
            tool_call(
                "question",
                question="Which database should the service use?",
                options=["PostgreSQL", "SQLite", "MySQL"],
            )
        )
    )

    async def run_before(pilot: Pilot[object]) -> None:
        app = await ready(pilot)
        await submit(pilot, "set up the storage layer")
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), "the question dialog")
        await pilot.pause()

    assert snap_compare(make_app(workspace, scripted_server), terminal_size=size, run_before=run_before)


def test_todo_pane(snap_compare, workspace: Path, scripted_server: ScriptedServer, size) -> None:
    todos = [
        {"id": "1", "content": "Read the failing test", "status": "completed"},
        {"id": "2", "content": "Fix the off-by-one in the pager", "status": "in_progress"},
        {"id": "3", "content": "Run the test suite", "status": "pending"},
        {"id": "4", "content": "Update the changelog", "status": "cancelled"},
    ]
    scripted_server.add(reply(tool_call("todowrite", todos=todos)), reply(text("Plan ready.")))

    async def run_before(pilot: Pilot[object]) -> None:
        app = await ready(pilot)
        await submit(pilot, "fix the pager")
        await settle(pilot)
        app.session.panes_visible = True
        await pilot.pause()

    assert snap_compare(make_app(workspace, scripted_server), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("mode", ["default", "auto-edit", "plan", "yolo"])
def test_prompt_line_in_each_mode(snap_compare, workspace: Path, scripted_server: ScriptedServer, mode, size) -> None:
    async def run_before(pilot: Pilot[object]) -> None:
        await ready(pilot)
        await pilot.press(*"tidy the readme")

    app = make_app(workspace, scripted_server, start_mode=mode)
    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_slash_command_completion_list(snap_compare, workspace: Path, scripted_server: ScriptedServer, size) -> None:
    async def run_before(pilot: Pilot[object]) -> None:
        await ready(pilot)
        await pilot.press("slash", "m")
        await pilot.pause()

    assert snap_compare(make_app(workspace, scripted_server), terminal_size=size, run_before=run_before)


def test_queued_input(snap_compare, workspace: Path, scripted_server: ScriptedServer, size) -> None:
    scripted_server.add(stall(after=reply(text("Looking at the tests first")), seconds=30))

    async def run_before(pilot: Pilot[object]) -> None:
        app = await ready(pilot)
        await submit(pilot, "fix the failing tests")
        await wait_until(pilot, lambda: "first" in app.session.transcript.entries[-1].text, "the stream to start")
        await submit(pilot, "then update the changelog")
        await submit(pilot, "and bump the version")
        await pilot.pause()

    assert snap_compare(make_app(workspace, scripted_server), terminal_size=size, run_before=run_before)
