"""SPEC 15: while a turn runs, the status line shows its elapsed time and the tokens streamed (issue 29 item 10)."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder_tui.screens.session import SessionScreen
from coder_tui.widgets.status_line import StatusLine
from tests.support.scenario import reply, slow, stall, text
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, submit, wait_until

# 400 characters of varied words: about 100 tokens streamed.
ANSWER = " ".join(f"word{n:03d}" for n in range(50))[:399] + "."


async def test_the_status_line_counts_time_and_tokens(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(stall(after=reply(text(ANSWER)), seconds=30))
    now = [100.0]
    app = make_app(workspace, scripted_server, timer=lambda: now[0])
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await submit(pilot, "go")
        status = app.session.query_one(StatusLine)
        await wait_until(pilot, lambda: status.streamed_tokens == 100, "the streamed text")

        now[0] = 172.0
        await wait_until(pilot, lambda: status.elapsed_s == 72, "the next tick")
        shown = status.render().plain
        assert shown.rstrip().endswith("working… 1m 12s · ↓ 100 tokens · esc to interrupt")
        await pilot.press("escape")
        await settle(pilot)
        assert "1m 12s" not in status.render().plain


async def test_the_token_count_changes_with_the_answers_rounds_not_with_every_delta(
    workspace: Path, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fast model streams a delta a millisecond: shown at each, the count redrew the status line and wrote a frame
    for every one (issue 46). It changes when the answer's text changes on screen, a few times a second, in the same
    frame. With the second's tick (which shows the count too) left out, it changes at most once a round."""
    monkeypatch.setattr(SessionScreen, "_show_elapsed", lambda self: None)
    scripted_server.add(slow(reply(text(ANSWER, chunk=4)), delay=0.005))  # 100 deltas, 5 ms apart
    app = make_app(workspace, scripted_server, timer=lambda: 100.0)
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        status = app.session.query_one(StatusLine)
        shown: list[tuple[int, bool]] = []  # each count shown, and whether a round showed it
        rounds: list[int] = []
        app.session.watch(
            status, "streamed_tokens", lambda count: shown.append((count, bool(rounds) and rounds[-1] == 1)), init=False
        )
        original = SessionScreen.on_streaming_markdown_round_shown

        def counted(screen: SessionScreen) -> None:
            rounds.append(1)
            original(screen)
            rounds[-1] = 0

        monkeypatch.setattr(SessionScreen, "on_streaming_markdown_round_shown", counted)
        await submit(pilot, "go")
        await settle(pilot)
    assert shown and all(by_round for _count, by_round in shown), shown
    assert len(shown) <= len(rounds) < 20, (shown, len(rounds))
    assert shown[-1][0] == 100  # the whole answer's estimate


async def test_at_80_columns_esc_to_interrupt_stays(workspace: Path, scripted_server: ScriptedServer) -> None:
    """Issue 43 item 13: a narrow status line gives up the word "context" and the token count, not the hint."""
    scripted_server.add(stall(after=reply(text(ANSWER)), seconds=30))
    now = [100.0]
    app = make_app(workspace, scripted_server, timer=lambda: now[0])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await submit(pilot, "go")
        status = app.session.query_one(StatusLine)
        await wait_until(pilot, lambda: status.streamed_tokens == 100, "the streamed text")
        now[0] = 172.0
        await wait_until(pilot, lambda: status.elapsed_s == 72, "the next tick")
        shown = status.render().plain
        assert shown.startswith("scripted-model · ") and "context" not in shown, shown
        assert shown.rstrip().endswith("working… 1m 12s · esc to interrupt"), shown
        await pilot.press("escape")
        await settle(pilot)
