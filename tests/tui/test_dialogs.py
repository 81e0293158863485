"""SPEC 5 approval dialog (y / n / a, buttons, Esc cancels the task) and the question dialog (Select, Confirm,
Input with validation), driven by tool calls from the scripted server where the engine has the tool.

The keyboard and button tests run at 120x40 and at 80x24, and check first that every choice is on screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widget import Widget
from textual.widgets import Button, Input, Static
from textual.widgets._footer import FooterKey

from coder_tui.app import CoderApp
from coder_tui.screens.approval import CHOICES, ApprovalScreen
from coder_tui.screens.question import QuestionScreen
from coder_tui.screens.session_events import REFUSED_NOTICE
from coder_tui.widgets.notice_line import NoticeLine
from coder_tui.widgets.tool_call_view import ToolCallView
from engine.events import ToolStatus
from engine.interaction import ApprovalDecision, ApprovalRequest, QuestionAnswer, QuestionRequest
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import SIZE_IDS, SIZES, make_app, ready, settle, submit, wait_until

TOUCH = "touch made.txt"


def record_decisions(app: CoderApp) -> list[ApprovalDecision]:
    """Wraps the TUI's handler so a test sees what the dialog itself answered."""
    decisions: list[ApprovalDecision] = []
    inner = app.link.interaction.request_approval

    async def request_approval(request: ApprovalRequest) -> ApprovalDecision:
        decision = await inner(request)
        decisions.append(decision)
        return decision

    app.link.interaction.request_approval = request_approval  # type: ignore[method-assign]
    return decisions


def tool_statuses(app: CoderApp) -> list[ToolStatus]:
    return [view.status for view in app.session.transcript.query(ToolCallView)]


async def run_until_approval(pilot, app: CoderApp, request: str) -> ApprovalScreen:  # type: ignore[no-untyped-def]
    await submit(pilot, request)
    await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the approval dialog")
    await laid_out(pilot, app)
    assert isinstance(app.screen, ApprovalScreen)
    return app.screen


async def laid_out(pilot, app: CoderApp) -> None:  # type: ignore[no-untyped-def]
    """Waits until the dialog's buttons have a place, then for the dialog to fit itself to the screen."""
    await wait_until(
        pilot, lambda: all(button.region.width > 0 for button in app.screen.query(Button)), "the dialog's layout"
    )
    for _ in range(3):
        await pilot.pause()


def on_screen(app: CoderApp, widget: Widget) -> bool:
    """The whole widget is drawn: inside the screen and not clipped by a container or pushed out of one."""
    geometry = app.screen.find_widget(widget)
    region = geometry.region
    return bool(region) and geometry.visible_region == region and app.screen.region.contains_region(region)


def footer_keys(app: CoderApp) -> set[str]:
    """The keys the footer on screen lists."""
    return {key.key for key in app.screen.query(FooterKey) if on_screen(app, key)}


def assert_choices_on_screen(app: CoderApp) -> None:
    """Every button of the dialog, its reasons and its footer's keys are visible."""
    dialog = app.screen
    assert isinstance(dialog, ApprovalScreen)
    buttons = {button.id: button for button in dialog.query(Button)}
    assert set(buttons) == {choice.button_id for choice in dialog.choices}
    for button_id, button in buttons.items():
        assert on_screen(app, button), f"{button_id} is not (wholly) on screen"
    if dialog.request.reasons:
        assert on_screen(app, dialog.query_one("#reasons-box"))  # long reasons scroll inside it
    assert on_screen(app, dialog.query_one("#always"))
    expected = {"y", "n", "escape"} | ({"a", "p"} if dialog.request.always_scope is not None else set())
    assert footer_keys(app) >= expected
    assert "enter" not in footer_keys(app)  # the prompt's keys are not the dialog's


async def test_approval_dialog_shows_tool_argument_reasons_and_scope(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(tool_call("bash", command="make build > build.log")), reply(text("ok")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        dialog = await run_until_approval(pilot, app, "build")
        request = dialog.request
        assert (request.tool, request.key_argument) == ("bash", "make build > build.log")
        shown = "\n".join(str(widget.visual) for widget in dialog.query(Static))
        assert "Allow bash?" in shown and "make build > build.log" in shown
        for reason in request.reasons:
            assert reason in shown
        assert f"Always allows: {request.always_scope}" in " ".join(shown.split())


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_y_approves_the_call(workspace: Path, scripted_server: ScriptedServer, size: tuple[int, int]) -> None:
    scripted_server.add(reply(tool_call("bash", command=TOUCH)), reply(text("made it")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        decisions = record_decisions(app)
        await run_until_approval(pilot, app, "make a file")
        assert_choices_on_screen(app)
        await pilot.press("y")
        await settle(pilot)
        assert decisions == [ApprovalDecision.YES]
        assert (workspace / "made.txt").exists()
        assert tool_statuses(app) == [ToolStatus.SUCCESS]


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_n_refuses_the_call_and_stops_the_turn(
    workspace: Path, scripted_server: ScriptedServer, size: tuple[int, int]
) -> None:
    """SPEC 5: a plain "no" stops the turn and gives the prompt back; the model hears of it with the next input."""
    scripted_server.add(reply(tool_call("bash", command=TOUCH)), reply(text("What instead?")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await run_until_approval(pilot, app, "make a file")
        assert_choices_on_screen(app)
        await pilot.press("n")
        await settle(pilot)
        assert not (workspace / "made.txt").exists()
        assert tool_statuses(app) == [ToolStatus.DENIED]
        assert len(scripted_server.requests) == 1
        notices = [str(n.render()) for n in app.session.transcript.query(NoticeLine)]
        assert any(REFUSED_NOTICE in notice for notice in notices)
        await submit(pilot, "use notes.md")
        await wait_until(pilot, lambda: len(scripted_server.requests) == 2, "the next request")
        tool_message, user_message = scripted_server.requests[1].body["messages"][-2:]
        assert tool_message["role"] == "tool" and "stopped the turn" in tool_message["content"]
        assert user_message == {"role": "user", "content": "use notes.md"}


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_a_allows_the_scope_for_the_rest_of_the_session(
    workspace: Path, scripted_server: ScriptedServer, size: tuple[int, int]
) -> None:
    scripted_server.add(
        reply(tool_call("bash", command=TOUCH)),
        reply(tool_call("bash", command=TOUCH)),
        reply(text("twice")),
    )
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        decisions = record_decisions(app)
        await run_until_approval(pilot, app, "make a file twice")
        assert_choices_on_screen(app)
        await pilot.press("a")
        await settle(pilot)
        assert decisions == [ApprovalDecision.ALWAYS]
        assert tool_statuses(app) == [ToolStatus.SUCCESS, ToolStatus.SUCCESS]
        assert any(isinstance(entry, NoticeLine) for entry in app.session.transcript.entries)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_p_allows_the_scope_in_this_project_for_good(
    workspace: Path, scripted_server: ScriptedServer, size: tuple[int, int]
) -> None:
    import json

    scripted_server.add(reply(tool_call("bash", command=TOUCH)), reply(text("made")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        decisions = record_decisions(app)
        await run_until_approval(pilot, app, "make a file")
        assert_choices_on_screen(app)
        await pilot.press("p")
        await settle(pilot)
        assert decisions == [ApprovalDecision.ALWAYS_PROJECT]
        assert (workspace / "made.txt").exists()
        # The folder is not trusted: the screen says the saved rule waits for trust (SPEC 19), not that it holds.
        notices = [str(n.render()) for n in app.session.transcript.query(NoticeLine)]
        assert any("this folder is not trusted" in n and "/trust on" in n for n in notices)
    saved = json.loads((workspace / ".coder" / "config.json").read_text())
    assert saved["permissions"]["bash"] == {"touch *": "allow"}


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_a_call_that_can_only_be_allowed_once_offers_no_always(
    workspace: Path, scripted_server: ScriptedServer, size: tuple[int, int]
) -> None:
    scripted_server.add(reply(tool_call("bash", command=TOUCH)), reply(text("ok")))
    app = make_app(workspace, scripted_server, start_mode="plan")
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        dialog = await run_until_approval(pilot, app, "make a file")
        assert_choices_on_screen(app)
        assert dialog.request.always_scope is None
        shown = "\n".join(str(widget.visual) for widget in dialog.query(Static))
        assert "can only be allowed once" in shown and "Always allows" not in shown
        assert {button.id for button in dialog.query(Button)} == {"yes", "no", "explain", "cancel"}
        await pilot.press("a")  # not offered: nothing happens
        await pilot.pause()
        assert isinstance(app.screen, ApprovalScreen)
        await pilot.press("y")
        await settle(pilot)
        assert (workspace / "made.txt").exists()


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
@pytest.mark.parametrize(
    ("button_id", "decision"),
    # "No, tell it why" opens a line for the reason instead of deciding (test_deny_with_reason.py).
    [(choice.button_id, choice.decision) for choice in CHOICES if choice.button_id != "explain"],
    ids=[choice.button_id for choice in CHOICES if choice.button_id != "explain"],
)
async def test_buttons_answer_like_the_keys(
    workspace: Path, scripted_server: ScriptedServer, size: tuple[int, int], button_id: str, decision: ApprovalDecision
) -> None:
    scripted_server.add(reply(tool_call("bash", command=TOUCH)), reply(text("done")), reply(text("done")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        decisions = record_decisions(app)
        await run_until_approval(pilot, app, "make a file")
        assert_choices_on_screen(app)
        await pilot.click(f"#{button_id}")
        await settle(pilot)
        assert decisions == [decision]
        assert (workspace / "made.txt").exists() == (decision not in (ApprovalDecision.NO, ApprovalDecision.CANCEL))


async def test_a_long_diff_scrolls_inside_the_dialog_at_80x24(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    content = "".join(f"line_{index} = {index}\n" for index in range(120))
    scripted_server.add(reply(tool_call("write", path="src/big.py", content=content)), reply(text("written")))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        decisions = record_decisions(app)
        dialog = await run_until_approval(pilot, app, "write the big module")
        assert_choices_on_screen(app)
        preview = dialog.query_one("#preview")
        assert on_screen(app, preview)
        assert preview.max_scroll_y > 100  # the diff's 120 lines are there, in a window of a few rows
        await pilot.press("pagedown")
        await pilot.pause()
        assert preview.scroll_y > 0
        preview.scroll_end(animate=False)
        await pilot.pause()
        assert_choices_on_screen(app)
        await pilot.press("y")
        await settle(pilot)
        assert decisions == [ApprovalDecision.YES]
        assert (workspace / "src" / "big.py").read_text() == content


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_esc_in_the_dialog_cancels_the_whole_task(
    workspace: Path, scripted_server: ScriptedServer, size: tuple[int, int]
) -> None:
    scripted_server.add(reply(tool_call("bash", command=TOUCH)))
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        decisions = record_decisions(app)
        await run_until_approval(pilot, app, "make a file")
        assert_choices_on_screen(app)
        await pilot.press("escape")
        await settle(pilot)
        # The dialog's own Esc answered (the app-level Esc did not take it over), and the task was cancelled.
        assert decisions == [ApprovalDecision.CANCEL]
        assert not isinstance(app.screen, ApprovalScreen)
        assert tool_statuses(app) == [ToolStatus.CANCELLED]
        notices = [entry.text for entry in app.session.transcript.entries if isinstance(entry, NoticeLine)]
        assert notices[-1] == "interrupted"
        assert not (workspace / "made.txt").exists()
        assert len(scripted_server.requests) == 1


async def ask(pilot, app: CoderApp, request: QuestionRequest) -> list[QuestionAnswer]:  # type: ignore[no-untyped-def]
    answers: list[QuestionAnswer] = []

    async def question() -> None:
        answers.append(await app.link.interaction.ask_question(request))

    app.run_worker(question())
    await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), "the question dialog")
    await laid_out(pilot, app)
    return answers


async def test_question_select_returns_the_chosen_option(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        answers = await ask(pilot, app, QuestionRequest("Which one?", options=("alpha", "beta"), allow_input=False))
        assert app.screen.kind == "select"  # type: ignore[attr-defined]
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: bool(answers), "the answer")
        assert answers == [QuestionAnswer("beta")]


async def test_an_agents_question_names_the_agent(workspace: Path, scripted_server: ScriptedServer) -> None:
    from textual.widgets import Static

    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        request = QuestionRequest("Which one?", options=("alpha", "beta"), allow_input=False, agent="survey")
        answers = await ask(pilot, app, request)
        shown = str(app.screen.query_one("#question", Static).render())
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(answers), "the answer")
    assert shown == "Agent survey asks: Which one?"
    assert answers == [QuestionAnswer("alpha")]


async def test_question_confirm_has_yes_and_no(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        answers = await ask(pilot, app, QuestionRequest("Proceed?", options=("yes", "no"), allow_input=False))
        assert app.screen.kind == "confirm"  # type: ignore[attr-defined]
        await pilot.click("#no")
        await wait_until(pilot, lambda: bool(answers), "the answer")
        assert answers == [QuestionAnswer("no")]


async def test_question_input_is_validated(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        answers = await ask(pilot, app, QuestionRequest("Name of the new module?"))
        await pilot.press("enter")
        await pilot.pause()
        assert answers == [] and isinstance(app.screen, QuestionScreen)
        assert "cannot be empty" in str(app.screen.query_one("#hint", Static).visual)
        app.screen.query_one(Input).value = "billing"
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(answers), "the answer")
        assert answers == [QuestionAnswer("billing")]


async def test_esc_in_the_question_dialog_cancels(workspace: Path, scripted_server: ScriptedServer) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        answers = await ask(pilot, app, QuestionRequest("Anything?"))
        await pilot.press("escape")
        await wait_until(pilot, lambda: bool(answers), "the answer")
        assert answers == [QuestionAnswer(None, cancelled=True)]


async def test_a_long_list_of_options_scrolls_and_the_question_stays_on_screen_at_80x24(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        options = tuple(f"option {index}" for index in range(40))
        answers = await ask(pilot, app, QuestionRequest("Which one?", options=options, allow_input=True))
        dialog = app.screen
        for part in ("#question", "#options", "#answer", "#hint"):
            assert on_screen(app, dialog.query_one(part)), part
        assert "escape" in footer_keys(app) and "enter" not in footer_keys(app)
        await pilot.press("end", "enter")
        await wait_until(pilot, lambda: bool(answers), "the answer")
        assert answers == [QuestionAnswer("option 39")]
