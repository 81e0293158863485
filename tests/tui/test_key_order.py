"""Keys apply in the order they arrive, however fast (issue 29 item 8): a key bound on the prompt (Ctrl+J,
Backspace, the arrows, Ctrl+K) in the middle of a burst of typing, as a fast typist or a terminal delivers it, lands
where it was pressed, not after the keys behind it."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events

from tests.support.scripted_server import ScriptedServer
from tests.tui.helpers import make_app, prompt_of, ready

BURSTS = [
    (["a", "b", "c", "ctrl+j", "d", "e", "f"], "abc\ndef"),
    (["a", "b", "c", "shift+enter", "d"], "abc\nd"),
    (["a", "b", "c", "backspace", "d"], "abd"),
    (["a", "b", "c", "left", "left", "x"], "axbc"),
    (["a", "b", "c", "home", "x"], "xabc"),
    (["a", "b", "c", "left", "left", "ctrl+k", "z"], "az"),
    (["a", "b", "c", "alt+backspace", "d"], "d"),
]


@pytest.mark.parametrize(("keys", "expected"), BURSTS, ids=["ctrl+j", "shift+enter", "backspace", "left", "home",
                                                              "ctrl+k", "alt+backspace"])
async def test_a_burst_of_keys_applies_in_order(
    workspace: Path, scripted_server: ScriptedServer, keys: list[str], expected: str
) -> None:
    app = make_app(workspace, scripted_server)
    async with app.run_test() as pilot:
        await ready(pilot)
        # All in one go, as the terminal delivers them: none waits for the one before to be handled.
        for key in keys:
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await pilot.pause()
        await pilot.pause()
        assert prompt_of(app).text == expected
