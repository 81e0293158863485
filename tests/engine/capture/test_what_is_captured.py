"""Which tool calls the capture encloses (issue 32: every call used to, a read-only one included, which cost a
watcher round trip each and tripled the client time per call of a headless turn)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.capture.tool_capture import ToolCapture
from engine.modes import Mode
from tests.support.fakes import close_orchestrators, make_orchestrator  # noqa: F401 (the fixture)
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


async def test_only_the_calls_that_may_change_files_are_captured(
    tmp_path: Path, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "notes.txt").write_text("the limit is 10\n")
    enclosed: list[str] = []
    around = ToolCapture.around

    def counting(self: ToolCapture, journal=None):  # type: ignore[no-untyped-def]
        enclosed.append("call")
        return around(self, journal)

    monkeypatch.setattr(ToolCapture, "around", counting)
    scripted_server.add(
        reply(tool_call("read", id="r", path="notes.txt")),
        reply(tool_call("grep", id="g", pattern="limit")),
        reply(tool_call("bash", id="b", command="echo 11 > limit.txt")),
        text("done"),
    )
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.YOLO)
    await orch.run_prompt("raise the limit")
    assert enclosed == ["call"]  # the bash command, not the read or the grep
    assert (tmp_path / "limit.txt").read_text() == "11\n"
    orch.undo.undo_last_turn()
    assert not (tmp_path / "limit.txt").exists()  # and what it did is still put back
