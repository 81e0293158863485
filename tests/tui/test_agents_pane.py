"""The agents pane (SPEC 26): Ctrl+B lists the agents; Enter on one shows its transcript, m the main session's
again; what a background agent streams never reaches the transcript in view; Esc in an agent's view cancels that
agent only."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from coder_tui.app import CoderApp
from coder_tui.widgets.agents_pane import AgentsPane
from coder_tui.widgets.tool_call_view import ToolCallView
from coder_tui.widgets.user_message import UserMessage
from tests.support.scenario import ReplyLike, Stall, reply, text, tool_call
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import SIZE_IDS, SIZES, make_app, ready, settle, submit, wait_until

GIT_ENV = {"PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": "/nonexistent", "LC_ALL": "C"}


def make_repo(root: Path) -> None:
    identity = ("-c", "user.name=Test", "-c", "user.email=test@example.invalid")
    for args in (("init", "--quiet", "-b", "main"), ("add", "-A"), ("commit", "--quiet", "-m", "start")):
        subprocess.run(["git", *identity, *args], cwd=root, env=GIT_ENV, check=True, capture_output=True)


def agents_answer(body: dict[str, Any]) -> ReplyLike:
    """``alpha`` writes its file then says so; ``slow`` (and ``slow2``...) never answers."""
    request = next(m["content"] for m in body["messages"] if m["role"] == "user")
    name = re.search(r"agent (\w+)", request).group(1)  # type: ignore[union-attr]
    if name.startswith("slow"):
        return Stall(after=reply(text("slow is thinking")), seconds=30)
    if body["messages"][-1]["role"] == "user":
        return reply(tool_call("write", path=f"{name}.txt", content=f"{name}\n"))
    return reply(text(f"{name} wrote its file"))


def requests_shown(app: CoderApp) -> list[str]:
    return [message.text for message in app.session.transcript.query(UserMessage)]


def calls_shown(app: CoderApp) -> list[str]:
    return [view.key_argument for view in app.session.transcript.query(ToolCallView)]


def state_of(app: CoderApp, name: str) -> str | None:
    return next((str(row["state"]) for row in app.session.agents_pane.rows if row["name"] == name), None)


async def test_the_pane_switches_the_transcript_and_esc_cancels_only_the_agent_in_view(workspace: Path) -> None:
    make_repo(workspace)
    with ScriptedServer(fallback=agents_answer) as server:
        app = make_app(workspace, server)
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot)
            await submit(pilot, "/spawn --mode auto-edit --name alpha agent alpha: write your file")
            await submit(pilot, "/spawn --mode auto-edit --name slow agent slow: take your time")
            await wait_until(pilot, lambda: state_of(app, "alpha") == "done", "alpha to finish")
            await wait_until(pilot, lambda: state_of(app, "slow") == "working", "slow to work")
            await settle(pilot)
            main_requests, main_calls = requests_shown(app), calls_shown(app)

            await pilot.press("ctrl+b")
            pane = app.session.agents_pane
            await wait_until(pilot, lambda: pane.open and app.focused is pane, "the pane")
            await pilot.press("down", "enter")  # below the main session: alpha
            await wait_until(pilot, lambda: app.link.agent_in_view == "alpha", "alpha's view")
            await settle(pilot)
            alpha_requests = requests_shown(app)
            alpha_status = app.session.status.agents
            alpha_file = (workspace / ".coder" / "worktrees" / "alpha" / "alpha.txt").read_text()

            await pilot.press("ctrl+b", "down", "enter")  # slow, below alpha
            await wait_until(pilot, lambda: app.link.agent_in_view == "slow", "slow's view")
            await settle(pilot)
            await pilot.press("escape")  # cancels slow, the agent in view
            await wait_until(pilot, lambda: state_of(app, "slow") == "cancelled", "slow to be cancelled")

            await pilot.press("ctrl+b", "m")
            await wait_until(pilot, lambda: app.link.agent_in_view is None, "the main view")
            await settle(pilot)
            back_requests, back_calls = requests_shown(app), calls_shown(app)

    # The agents' calls were never drawn in the main session's transcript, before or after looking at them.
    assert main_calls == back_calls == []
    assert all(shown.startswith("/spawn") for shown in main_requests)
    assert alpha_requests == ["agent alpha: write your file"]
    assert alpha_status == "▶ alpha · agents 1/2"
    assert alpha_file == "alpha\n"
    assert state_of(app, "alpha") == "done"
    assert all(shown.startswith(("/spawn", "/agents")) for shown in back_requests)
    assert isinstance(app.session.agents_pane, AgentsPane) and not app.session.agents_pane.open


async def test_c_in_the_agents_pane_cancels_every_running_agent_and_only_them(workspace: Path) -> None:
    from coder_tui.input.bindings import help_rows

    make_repo(workspace)
    with ScriptedServer(fallback=agents_answer) as server:
        app = make_app(workspace, server)
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot)
            await submit(pilot, "/spawn --mode auto-edit --name alpha agent alpha: write your file")
            await wait_until(pilot, lambda: state_of(app, "alpha") == "done", "alpha to finish")
            for name in ("slow", "slow2"):
                await submit(pilot, f"/spawn --mode auto-edit --name {name} agent {name}: take your time")
            await wait_until(pilot, lambda: state_of(app, "slow") == state_of(app, "slow2") == "working", "them")
            # The main session is in the middle of a turn of its own: the key does not wait behind it.
            await submit(pilot, "agent slowmain: think it over")
            await wait_until(pilot, lambda: app.link.busy, "the main session's turn")
            await pilot.press("ctrl+b")
            await wait_until(pilot, lambda: app.focused is app.session.agents_pane, "the pane")
            await pilot.press("c")
            await wait_until(pilot, lambda: not app.session.agents_pane.running_names(), "the agents to stop")
            states = {name: state_of(app, name) for name in ("alpha", "slow", "slow2")}
            main_still_running = app.link.busy
            await pilot.press("escape", "escape")
            await settle(pilot)

    assert states == {"alpha": "done", "slow": "cancelled", "slow2": "cancelled"}
    assert main_still_running
    assert ("agents pane", "C", "cancel every agent that runs or waits (Esc in an agent's view cancels that one "
            "only)") in help_rows()


async def test_the_elapsed_time_of_running_agents_ticks_only_while_the_pane_is_shown(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    from engine.events import AgentsChanged

    clock = [100.0]
    app = make_app(workspace, scripted_server, timer=lambda: clock[0])
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        pane, screen = app.session.agents_pane, app.session
        app.session.show_event(AgentsChanged(MIXED))
        await settle(pilot)
        hidden_ticking = pane.ticking
        await pilot.press("ctrl+b")
        await wait_until(pilot, lambda: pane.open, "the pane")
        await settle(pilot)
        reflowed_at = screen._reflowed_at
        clock[0] += 10
        await wait_until(pilot, lambda: "1m33s" in row_text(pane, "fix-login"), "the clock to tick")
        await settle(pilot)
        ticked = {name: row_text(pane, name) for name in ("fix-login", "add-tests", "docs-pass", "bump-deps")}
        relaid = screen._reflowed_at != reflowed_at
        await pilot.press("escape")
        await settle(pilot)
        closed_ticking = pane.ticking
        await pilot.press("ctrl+b")
        app.session.show_event(AgentsChanged(tuple(dict(r, state="done") for r in MIXED)))
        await settle(pilot)
        all_done_ticking = pane.ticking

    assert not hidden_ticking and not closed_ticking and not all_done_ticking
    assert "1m33s" in ticked["fix-login"]  # 83 s, then 10 more
    assert "57s" in ticked["add-tests"]  # waiting for you: it still runs
    assert "5m12s" in ticked["docs-pass"] and "9s" in ticked["bump-deps"]  # ended: their time stands
    assert not relaid  # only the pane's rows were drawn again, not the screen laid out


def row_text(pane: AgentsPane, name: str) -> str:
    return pane.get_option(f"agent:{name}").prompt.plain  # type: ignore[union-attr]


def row(name: str, state: str, done: int, total: int, elapsed: float, tokens: int) -> dict[str, Any]:
    return {
        "name": name, "task": f"{name} task", "state": state, "branch": f"coder/{name}",
        "worktree": f"/home/dev/demo-project/.coder/worktrees/{name}", "base_commit": "0" * 40,
        "session_id": f"s-{name}", "mode": "auto-edit", "todos_done": done, "todos_total": total,
        "elapsed_s": elapsed, "tokens": tokens, "note": "",
    }


MIXED = (
    row("fix-login", "working", 2, 5, 83.0, 12_480),
    row("add-tests", "waiting for you", 1, 3, 47.5, 6_210),
    row("docs-pass", "done", 4, 4, 312.0, 31_877),
    row("bump-deps", "failed", 0, 0, 9.2, 1_024),
)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_agents_pane_with_agents_in_mixed_states(snap_compare, workspace: Path, scripted_server: ScriptedServer,
                                                  size: tuple[int, int]) -> None:
    from engine.events import AgentsChanged

    async def run_before(pilot: Pilot[object]) -> None:
        app = await ready(pilot)
        app.session.show_event(AgentsChanged(MIXED))
        await pilot.press("ctrl+b", "down")
        await settle(pilot)

    assert snap_compare(make_app(workspace, scripted_server), terminal_size=size, run_before=run_before)


async def test_quitting_with_agents_running_asks_first(workspace: Path, scripted_server: ScriptedServer) -> None:
    from coder_tui.screens.question import QuestionScreen
    from engine.events import AgentsChanged

    app = make_app(workspace, scripted_server)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        app.session.show_event(AgentsChanged(MIXED))
        await pilot.press("ctrl+d")
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), "the question")
        asked = app.screen.request.question
        await pilot.press("3")  # Stay
        await wait_until(pilot, lambda: not isinstance(app.screen, QuestionScreen), "the question to close")
        stayed = app.is_running
        await pilot.press("ctrl+d")
        await wait_until(pilot, lambda: isinstance(app.screen, QuestionScreen), "the question again")
        await pilot.press("1")  # Stop them and quit
        await pilot.pause()

    assert asked.startswith("2 agents are still running (fix-login, add-tests)")
    assert stayed and app.return_code == 0


async def test_an_engine_killed_in_an_agents_view_restarts_on_the_main_session(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import signal

    from coder_tui.input.history import InputHistory
    from coder_tui.link.engine_process import EngineProcesses

    make_repo(workspace)
    with ScriptedServer(fallback=agents_answer) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("CODER_MODEL", "scripted-model")
        engine = EngineProcesses(workspace=workspace)
        app = CoderApp(workspace=workspace, engine=engine, history=InputHistory(None))
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot)
            main_session = app.link.state.session_id  # type: ignore[union-attr]
            await submit(pilot, "/spawn --mode auto-edit --name alpha agent alpha: write your file")
            await wait_until(pilot, lambda: state_of(app, "alpha") == "done", "alpha to finish")
            await submit(pilot, "/agents show alpha")
            await wait_until(pilot, lambda: app.link.agent_in_view == "alpha", "alpha's view")
            await settle(pilot)
            first_pid = engine.current.pid  # type: ignore[union-attr]
            os.kill(first_pid, signal.SIGKILL)
            await wait_until(pilot, lambda: engine.current is not None and engine.current.pid != first_pid
                             and app.link.state is not None and not app.link.busy and not app.link.queued,
                             "the engine to restart")
            await settle(pilot)
            resumed = app.link.state.session_id  # type: ignore[union-attr]
            in_view = app.link.agent_in_view

    assert (resumed, in_view) == (main_session, None)
