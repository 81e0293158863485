"""Snapshots of the session screen at 120x40 and 80x24 (SPEC 15, issue 3 item 10), driven by the engine talking
to the scripted server. Update with ``python -m pytest tests/tui --snapshot-update``; files live in snapshots/."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from textual.pilot import Pilot

from coder_tui.screens.approval import ApprovalScreen
from coder_tui.screens.question import QuestionScreen
from coder_tui.screens.session_picker import SessionPickerScreen
from engine.config.trust import trust_folder
from tests.support.scenario import reasoning, reply, stall, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import SIZE_IDS, SIZES, make_app, ready, settle, submit, wait_until, write_sessions

pytestmark = pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)

# "Now" for the resume picker: its sessions were used today, yesterday and two days before.
PICKER_NOW = datetime(2026, 11, 21, 11, 0, tzinfo=timezone.utc)

CODE_ANSWER = (
    "Here is the function:\n\n```python\ndef add(a: int, b: int) -> int:\n    return a + b\n```\n\n"
    "Call it with **two numbers**."
)


def test_empty_start(snap_compare, workspace: Path, scripted_server: ScriptedServer, size) -> None:
    assert snap_compare(make_app(workspace, scripted_server), terminal_size=size, run_before=ready)


def test_streamed_answer_with_code_block(snap_compare, workspace: Path, scripted_server: ScriptedServer, size) -> None:
    scripted_server.add(reply(text(CODE_ANSWER), usage=(3900, 40)))  # about what the request holds

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


def test_approval_modal_for_a_long_diff_keeps_its_choices_on_screen(
    snap_compare, workspace: Path, scripted_server: ScriptedServer, size
) -> None:
    content = "".join(f"line_{index} = {index}\n" for index in range(120))
    scripted_server.add(reply(tool_call("write", path="src/big.py", content=content)))

    async def run_before(pilot: Pilot[object]) -> None:
        app = await ready(pilot)
        await submit(pilot, "write the big module")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval dialog")
        for _ in range(3):
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


SUBAGENT_SCENARIO = (
    # parent: hands the job to a sub-agent
    reply(tool_call("task", id="call_t", description="Find the id", prompt="Read notes.txt; what is the id?")),
    # sub-agent: reads a file, is refused a command that is not read-only, answers
    reply(tool_call("read", id="sub_1", path="notes.txt")),
    reply(tool_call("bash", id="sub_2", command="touch x.txt")),
    reply(text("The id is 42 (notes.txt:1).")),
    # parent: uses the answer
    reply(text("The id is **42**.")),
)


def test_subagent_calls_nested_under_the_task_call(
    snap_compare, workspace: Path, scripted_server: ScriptedServer, size
) -> None:
    (workspace / "notes.txt").write_text("the id is 42\n")
    scripted_server.add(*SUBAGENT_SCENARIO)

    async def run_before(pilot: Pilot[object]) -> None:
        app = await ready(pilot)
        await submit(pilot, "what is the id?")
        await settle(pilot)
        app.session.panes_visible = True
        await pilot.pause()

    app = make_app(workspace, scripted_server, start_mode="auto-edit")
    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_skills_list(snap_compare, workspace: Path, scripted_server: ScriptedServer, size) -> None:
    skill = workspace / ".coder" / "skills" / "release-notes" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    trust_folder(workspace, {})  # a project's skills are listed as usable only in a trusted folder (SPEC 19)
    skill.write_text("---\nname: release-notes\ndescription: Write the release notes from the merged changes.\n---\n"
                     "Read the changelog, then write the notes.\n")

    async def run_before(pilot: Pilot[object]) -> None:
        await ready(pilot)
        await submit(pilot, "/skills")
        await settle(pilot)

    assert snap_compare(make_app(workspace, scripted_server), terminal_size=size, run_before=run_before)


def test_resume_picker(snap_compare, workspace: Path, scripted_server: ScriptedServer, size) -> None:
    write_sessions(workspace, [
        ("Fix the off-by-one in the pager", "2026-11-21T09:31:00+00:00", 12),
        ("Add a --json flag to the export command", "2026-11-20T18:02:00+00:00", 48),
        ("Why does the build fail on CI?", "2026-11-19T14:05:00+00:00", 6),
    ])

    async def run_before(pilot: Pilot[object]) -> None:
        app = await ready(pilot)
        await submit(pilot, "/resume")
        await settle(pilot)
        await wait_until(pilot, lambda: isinstance(app.screen, SessionPickerScreen), "the session picker")
        await pilot.pause()

    app = make_app(workspace, scripted_server, clock=lambda: PICKER_NOW)
    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_diff_summary_then_the_whole_diff(
    snap_compare, workspace: Path, scripted_server: ScriptedServer, size
) -> None:
    module = "".join(f"def step_{index}(value):\n    return value + {index}\n\n" for index in range(8))
    scripted_server.add(
        reply(tool_call("read", path="src/app.py")),
        reply(
            tool_call("edit", path="src/app.py", old_string='return "Hello " + name', new_string='return f"Hello {name}!"'),
            tool_call("write", path="src/steps.py", content=module),
        ),
        reply(text("Done.")),
    )

    async def run_before(pilot: Pilot[object]) -> None:
        await ready(pilot)
        await submit(pilot, "add the steps module")
        await settle(pilot)
        await submit(pilot, "/diff")
        await settle(pilot)

    app = make_app(workspace, scripted_server, start_mode="auto-edit")
    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("command", ["tools", "permissions"])
def test_two_column_output_as_tables(
    snap_compare, workspace: Path, scripted_server: ScriptedServer, command, size
) -> None:
    async def run_before(pilot: Pilot[object]) -> None:
        await ready(pilot)  # the side panes shown at 120 columns (the narrowest transcript there), hidden at 80
        await submit(pilot, f"/{command}")
        await settle(pilot)

    assert snap_compare(make_app(workspace, scripted_server), terminal_size=size, run_before=run_before)


def test_first_screen_without_a_model(snap_compare, workspace: Path, size, monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.provider.factory as factory
    from tests.tui.test_no_model import unconfigured_app

    # The advice names the user's config file: the same one on every machine.
    monkeypatch.setattr(factory, "user_config_path", lambda env: Path("/home/dev/.config/coder/config.json"))

    assert snap_compare(unconfigured_app(workspace), terminal_size=size, run_before=ready)
