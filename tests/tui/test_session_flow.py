"""The session against the engine and the scripted server: modes, Esc and Ctrl+C, the queue, /help, !commands,
tool calls in the transcript and the log, Ctrl+L and Ctrl+T, and long sessions."""

from __future__ import annotations

import pytest

from pathlib import Path

from coder_tui.input.bindings import KEY_TABLE, help_rows
from coder_tui.widgets.assistant_message import AssistantMessage
from coder_tui.widgets.command_output import CommandOutput
from coder_tui.widgets.help_view import HelpView
from coder_tui.widgets.markdown_lines import MarkdownLines
from coder_tui.widgets.notice_line import NoticeLine
from coder_tui.widgets.prompt_line import PromptLine
from coder_tui.widgets.queue_view import QueueView
from coder_tui.widgets.status_line import StatusLine
from coder_tui.widgets.tool_call_view import ToolCallView
from coder_tui.widgets.tool_log import ToolLog
from coder_tui.widgets.transcript_window import MAX_ENTRIES, RESUMED_ENTRIES
from coder_tui.widgets.user_message import UserMessage
from engine.events import ToolStatus
from tests.support.scenario import reply, stall, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, prompt_of, ready, settle, submit, wait_until


def shown_modes(app) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    return app.session.query_one(PromptLine).mode, app.link.mode.value


def screen_text(app) -> list[str]:  # type: ignore[no-untyped-def]
    """The screen as drawn, one string per row."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def test_shift_tab_cycles_default_auto_edit_plan(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        assert shown_modes(app) == ("default", "default")
        for expected in ("auto-edit", "plan", "default"):
            await pilot.press("shift+tab")
            assert shown_modes(app) == (expected, expected)
            # The priority binding wins over the screen's focus-previous: the prompt keeps the focus.
            assert app.focused is prompt_of(app)


async def test_the_mode_is_shown_once_on_the_prompt_line(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server, start_mode="auto-edit")
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await pilot.pause()
        rows = screen_text(app)
        assert [row for row in rows if "auto-edit" in row] == [rows[-3]]  # the prompt line, above the input
        assert rows[-3].strip().startswith("⏵⏵ auto-edit")


async def test_mode_commands_and_aliases_switch_the_mode(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        for command, expected in (("/plan", "plan"), ("/mode auto-edit", "auto-edit"), ("/yolo", "yolo"),
                                  ("/default", "default"), ("/build", "auto-edit")):
            await submit(pilot, command)
            await settle(pilot)
            assert shown_modes(app) == (expected, expected)
        await submit(pilot, "/yolo")
        await settle(pilot)
        await pilot.press("shift+tab")
        assert shown_modes(app)[0] == "default"  # yolo is left by Shift+Tab, never entered by it


async def test_esc_cancels_a_stalled_stream(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(stall(after=reply(text("Partial answer so far")), seconds=30), reply(text("Fresh answer")))
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "explain the code")
        transcript = app.session.transcript
        await wait_until(pilot, lambda: app.link.busy and "so far" in transcript.entries[-1].text, "the stream")
        await pilot.press("escape")
        await settle(pilot)
        notices = [entry for entry in transcript.entries if isinstance(entry, NoticeLine)]
        assert [(n.text, n.level) for n in notices] == [("interrupted", "interrupted")]
        answers = [e.text for e in transcript.entries if isinstance(e, (AssistantMessage, MarkdownLines))]
        assert answers == ["Partial answer so far"]
        assert app.session.query_one(StatusLine).state == "interrupted"
        assert scripted_server.requests[0].client_closed.wait(5)
        # Ready for input again.
        await submit(pilot, "try again")
        await settle(pilot)
        assert transcript.entries[-1].text == "Fresh answer"
        assert app.session.query_one(StatusLine).state == "ready"


async def test_ctrl_c_cancels_a_running_task_and_twice_on_idle_exits(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(stall(after=reply(text("Thinking")), seconds=30))
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "long task")
        await wait_until(pilot, lambda: app.link.busy, "the task to run")
        await pilot.press("ctrl+c")
        await settle(pilot)
        assert app.session.query_one(StatusLine).state == "interrupted"
        assert app.is_running
        await pilot.press("ctrl+c")
        assert app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert not app.is_running and app.return_code == 0


async def test_input_submitted_while_a_task_runs_is_queued_and_runs_next(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(stall(after=reply(text("Working")), seconds=30), reply(text("Second answer")))
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "first")
        await wait_until(pilot, lambda: app.link.busy, "the first input to run")
        await submit(pilot, "second")
        queue = app.session.query_one(QueueView)
        assert queue.items == ("second",) and queue.has_class("-visible")
        assert [e.text for e in app.session.transcript.entries if isinstance(e, UserMessage)] == ["first"]
        await pilot.press("escape")
        await settle(pilot)
        assert queue.items == () and not queue.has_class("-visible")
        assert [e.text for e in app.session.transcript.entries if isinstance(e, UserMessage)] == ["first", "second"]
        assert app.session.transcript.entries[-1].text == "Second answer"


async def test_an_input_that_starts_at_once_is_never_shown_as_queued(
    workspace: Path, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the engine idle an input starts as soon as the engine reads it: shown as queued meanwhile, the queue
    flashed open and shut on every input (laying the screen out twice)."""
    scripted_server.add(reply(text("An answer")), reply(text("Another")))
    shown: list[tuple[str, ...]] = []
    original = QueueView.set_items
    monkeypatch.setattr(QueueView, "set_items", lambda view, items: (shown.append(tuple(items)), original(view, items))[1])
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "one")
        await settle(pilot)
        await submit(pilot, "one more")
        await settle(pilot)
        assert app.session.transcript.entries[-1].text == "Another"
        assert shown and all(items == () for items in shown)
        assert not app.session.query_one(QueueView).has_class("-visible")


async def test_help_lists_commands_and_every_binding_of_the_footer_table(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "/help")
        await settle(pilot)
        # As drawn, with each wrapped description joined back into one line of words.
        help_text = " ".join(app.screen.query_one(HelpView).render().plain.split())
        for name, _ in app.link.state.slash_commands:
            assert name in help_text
        for _, keys, what in help_rows():  # every binding of the table (keys that do the same share a row)
            assert keys in help_text and " ".join(what.split()) in help_text
        assert all(" ".join(spec.help.split()) in help_text for spec in KEY_TABLE)
        footer_keys = {active.binding.key for active in app.session.active_bindings.values()}
        assert {"enter", "shift+tab", "ctrl+t"} <= footer_keys


async def test_bang_command_shows_command_exit_code_and_output(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "!echo out; echo err >&2; exit 3")
        await settle(pilot)
        output = app.session.transcript.query_one(CommandOutput)
        shown = output.query_one(".text").visual.plain  # type: ignore[union-attr]
        assert "$ echo out; echo err >&2; exit 3" in shown and "exit code 3" in shown
        assert "out" in shown and "err" in shown
        assert scripted_server.requests == []


async def test_tool_calls_show_summary_output_and_diff_in_transcript_and_log(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(
        reply(tool_call("read", path="src/util.py")),
        reply(tool_call("edit", path="src/util.py", old_string="a + b", new_string="b + a")),
        reply(text("Swapped.")),
    )
    app = make_app(workspace, scripted_server, start_mode="auto-edit")
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "swap the operands")
        await settle(pilot)
        read_view, edit_view = app.session.transcript.query(ToolCallView)
        assert (read_view.tool, read_view.status) == ("read", ToolStatus.SUCCESS)
        assert "def add(a, b):" in read_view.output_text
        assert edit_view.status is ToolStatus.SUCCESS
        assert "+    return b + a" in edit_view.diff
        log = app.session.query_one(ToolLog)
        rows = [log.row(view.call_id) for view in (read_view, edit_view)]
        assert [row.status for row in rows if row] == [ToolStatus.SUCCESS, ToolStatus.SUCCESS]
        assert rows[1] is not None and "+    return b + a" in rows[1].diff


async def test_ctrl_l_clears_the_screen_but_not_the_session(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("one")), reply(text("two")))
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "hello")
        await settle(pilot)
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert app.session.transcript.entries == []
        await submit(pilot, "again")
        await settle(pilot)
        assert len(scripted_server.requests[1].body["messages"]) > len(scripted_server.requests[0].body["messages"])


async def test_side_panes_collapse_at_80_columns_and_ctrl_t_toggles_them(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        side = app.session.query_one("#side")
        assert not side.display
        await pilot.press("ctrl+t")
        assert side.display
        await pilot.press("ctrl+t")
        assert not side.display
    wide = make_app(workspace, scripted_server)
    async with wide.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert wide.session.query_one("#side").display


async def test_long_session_keeps_only_the_last_entries_mounted(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        transcript = app.session.transcript
        for index in range(MAX_ENTRIES + 30):
            transcript.add_user(f"message {index}")
        await pilot.pause()
        entries = transcript.entries
        assert len(entries) == MAX_ENTRIES
        assert entries[-1].text == f"message {MAX_ENTRIES + 29}"
        assert "30 earlier entries" in transcript.query_one(".elided").visual.plain  # type: ignore[union-attr]


async def test_resumed_history_builds_only_the_last_entries(workspace: Path, scripted_server: ScriptedServer) -> None:
    from coder_tui.widgets.history_entries import RestoredHistory
    from engine.events import HistoryRestored
    from engine.restored import RestoredEntry

    records: list[dict[str, object]] = []
    for index in range(2500):
        records.append({"role": "user", "content": f"question {index}"})
        records.append({"role": "assistant", "content": f"answer **{index}**"})
    call = {"id": "call_9", "type": "function", "function": {"name": "read", "arguments": '{"path": "src/app.py"}'}}
    records += [{"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "call_9", "name": "read", "content": '{"ok": false, "error": "gone"}'}]
    restored = HistoryRestored.of("s1", [RestoredEntry("message", record) for record in records])
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        transcript = app.session.transcript
        transcript.show_history(RestoredHistory(restored))
        await pilot.pause()
        entries = transcript.entries
        assert len(entries) < RESUMED_ENTRIES and transcript.max_scroll_y > 0  # what fills the screen
        assert isinstance(entries[-1], ToolCallView) and entries[-1].status is ToolStatus.ERROR
        assert entries[-1].key_argument == "src/app.py"
        # A finished call mounts only what it shows: its summary and its output.
        assert len(entries[-1].children) == 2 and "gone" in entries[-1].output_text
        assert f"{5001 - len(entries)} earlier entries" in str(transcript.query_one(".elided").visual)


async def test_new_session_clears_the_transcript(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("hello")))
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "hi")
        await settle(pilot)
        await submit(pilot, "/new")
        await settle(pilot)
        entries = app.session.transcript.entries
        assert [type(entry) for entry in entries] == [CommandOutput]


async def test_a_long_streamed_answer_ends_as_one_light_widget(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    long_text = "".join(f"Paragraph {index} explains one more detail of the design.\n\n" for index in range(120))
    scripted_server.add(reply(text(long_text, chunk=40)))
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "explain at length")
        await settle(pilot)
        answers = [entry for entry in app.session.transcript.entries if isinstance(entry, AssistantMessage)]
        assert len(answers) == 1 and answers[0].text == long_text
        # One widget holds it all; the one that held the last block while streaming is empty and hidden.
        shown = [child for child in answers[0].children if child.display]
        assert [type(child) for child in shown] == [MarkdownLines] and shown[0].text == long_text
        assert all(not child.text for child in answers[0].query(MarkdownLines) if not child.display)


async def test_resume_picker_restores_a_session_into_the_transcript(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    from coder_tui.screens.session_picker import SessionPickerScreen

    scripted_server.add(reply(text("the first answer")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "remember this")
        await settle(pilot)
        await submit(pilot, "/new")
        await settle(pilot)
        await submit(pilot, "/resume")
        await settle(pilot)
        await wait_until(pilot, lambda: isinstance(app.screen, SessionPickerScreen), "the session picker")
        picker = app.screen
        assert isinstance(picker, SessionPickerScreen)
        assert [row["title"] for row in picker.sessions] == ["remember this"]
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        texts = [getattr(entry, "text", "") for entry in app.session.transcript.entries]
        assert "remember this" in texts and "the first answer" in texts
        assert any(isinstance(entry, CommandOutput) and "resumed session" in entry.result.text
                   for entry in app.session.transcript.entries)


async def test_esc_closes_the_resume_picker_and_nothing_changes(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    from coder_tui.screens.session_picker import SessionPickerScreen

    scripted_server.add(reply(text("an answer")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await submit(pilot, "first session")
        await settle(pilot)
        session_id = app.link.state.session_id
        await submit(pilot, "/resume")
        await settle(pilot)
        await wait_until(pilot, lambda: isinstance(app.screen, SessionPickerScreen), "the session picker")
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is app.session and app.link.state.session_id == session_id


async def test_compaction_loops_and_auto_verify_are_shown(workspace: Path, scripted_server: ScriptedServer) -> None:
    from engine.events import ContextCompacted, ErrorEvent, LoopDetected, VerificationFinished, VerificationStarted

    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        for event in (
            ContextCompacted(90_500, 30_200, "summary"),
            # As the engine sends a loop: the detection, then the error that ends the turn.
            LoopDetected("repeated_tool_call", "read src/app.py, 5 times"),
            ErrorEvent("loop detected: read src/app.py, 5 times"),
            VerificationStarted("pytest -q", 1),
            VerificationFinished("pytest -q", "fixable", 1, "2 tests failed", "FAILED test_a\nFAILED test_b"),
        ):
            app.session.show_event(event)
        await pilot.pause()
        notices = [(e.text, e.level) for e in app.session.transcript.entries if isinstance(e, NoticeLine)]
        assert notices == [
            ("context compacted here: 90.5k → 30.2k tokens", "info"),
            ("loop detected: read src/app.py, 5 times", "error"),
            ("auto-verify: running pytest -q (attempt 1)", "info"),
            ("auto-verify fixable: pytest -q — 2 tests failed\nFAILED test_a\nFAILED test_b", "warning"),
        ]


async def test_a_loop_is_reported_once(workspace: Path, scripted_server: ScriptedServer) -> None:
    from engine.workflow.loop_detection import TOOL_CALL_REPEATS

    scripted_server.add(*[reply(tool_call("read", path="src/app.py")) for _ in range(TOOL_CALL_REPEATS)])
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "read the app")
        await settle(pilot)
        notices = [e.text for e in app.session.transcript.entries if isinstance(e, NoticeLine)]
        loops = [text for text in notices if "loop detected" in text]
        assert len(loops) == 1 and f"called {TOOL_CALL_REPEATS} times" in loops[0]


async def test_the_status_says_ready_only_once_the_last_words_are_shown(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    from coder_tui.widgets.streaming_markdown import StreamingMarkdown
    from tests.support.scenario import slow

    answer = " ".join(f"word{index}" for index in range(120))
    scripted_server.add(slow(reply(text(answer, chunk=12)), delay=0.01))
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        status = app.session.status
        seen: list[tuple[str, bool]] = []

        def all_drawn() -> bool:
            return all(entry.is_settled for entry in app.session.transcript.query(StreamingMarkdown))

        app.session.watch(status, "state", lambda state: seen.append((state, all_drawn())), init=False)
        await submit(pilot, "say many words")
        await settle(pilot)
        await wait_until(pilot, lambda: status.state == "ready", "the status to say ready")
        assert ("ready", True) in seen and ("ready", False) not in seen
        assert answer in app.session.transcript.entries[-1].text
