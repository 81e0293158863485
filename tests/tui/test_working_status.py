"""SPEC 15: while a turn runs, the status line shows its elapsed time and the tokens streamed (issue 29 item 10)."""

from __future__ import annotations

from pathlib import Path

from coder_tui.widgets.status_line import StatusLine
from tests.support.scenario import reply, stall, text
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
