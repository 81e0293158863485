"""Issue 43 item 13, the smaller things a user reads: counts in the right number ("1 line"), one message count
for /fork and /export, and an export named after whole words of the title."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.scenario import reply, text
from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, ready, settle, submit
from tests.tui.test_habit_commands import last_output


async def test_copy_of_a_one_line_answer_says_one_line(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("Hello.")))
    app = make_app(workspace, scripted_server)
    app.copy_to_clipboard = lambda text: None  # type: ignore[method-assign]
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "hi")
        await settle(pilot)
        await submit(pilot, "/copy")
        await settle(pilot)
        assert last_output(app).result.text.endswith("(6 characters, 1 line)")


async def test_fork_and_export_count_the_same_messages_after_a_rewind(
    workspace: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(text("One.")), reply(text("Two.")), reply(text("Three.")))
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        for request in ("first", "second", "third"):
            await submit(pilot, request)
            await settle(pilot)
        await submit(pilot, "/rewind 2 conversation")  # the second request and what followed are cut
        await settle(pilot)
        await submit(pilot, "/export")
        await settle(pilot)
        exported = re.search(r"exported (\d+) messages", last_output(app).result.text)
        await submit(pilot, "/fork")
        await settle(pilot)
        forked = re.search(r"with (\d+) messages", last_output(app).result.text)
        assert exported and forked and exported[1] == forked[1] == "2", (exported, forked)


async def test_the_export_name_ends_at_a_whole_word(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("Done.")))
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        await submit(pilot, "please refactor the configuration loader so that environment overrides apply last")
        await settle(pilot)
        await submit(pilot, "/export")
        await settle(pilot)
        assert Path(last_output(app).result.path).name == "please-refactor-the-configuration-loader-so-that.md"
