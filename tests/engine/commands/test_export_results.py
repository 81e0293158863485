"""Issue 29 item 12: ``/export`` shows tool results as the transcript does (a command's structure, a file's
lines), not as escaped JSON."""

from __future__ import annotations

from pathlib import Path

from engine.command_results import ConversationExported
from engine.modes import Mode
from tests.support.fakes import make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


async def test_export_shows_results_as_text(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    (tmp_path / "notes.txt").write_text("first line\nsecond line\n")
    scripted_server.add(
        reply(tool_call("read", path="notes.txt")),
        reply(tool_call("bash", command="printf 'a\\nb\\n'")),
        reply(text("Done.")),
    )
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.YOLO)
    await orch.run_input("look")
    await orch.run_input("/export")
    markdown = Path(log.of(ConversationExported)[-1].path).read_text()
    assert '"stdout":' not in markdown and '"ok": true' not in markdown
    assert "first line\n" in markdown and "second line" in markdown
    assert "$ printf 'a\\nb\\n'\nexit code 0\nstdout:\na\nb\n" in markdown
