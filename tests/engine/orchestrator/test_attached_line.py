"""Issue 29 item 11: an @mention says what it attached ("attached src/util.py, 2 lines"), as a notice the user
sees, for files, folders and images alike."""

from __future__ import annotations

from pathlib import Path

from engine.events import Notice
from tests.support.fakes import make_orchestrator
from tests.support.scenario import text
from tests.support.scripted_server import ScriptedServer

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


async def test_mentions_say_what_they_attached(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "util.py").write_text("def add(a, b):\n    return a + b\n")
    (tmp_path / "src" / "one.txt").write_text("only line")
    (tmp_path / "shot.png").write_bytes(PNG)
    scripted_server.add(text("Seen."))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("look at @src/util.py @src/one.txt and @src/ and @shot.png")
    notices = [n.text for n in log.of(Notice) if n.text.startswith("attached")]
    assert notices == ["attached src/util.py, 2 lines, src/one.txt, 1 line, src/ (2 entries), shot.png (image)"]


async def test_no_line_without_a_mention(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("Hi."))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("hello @nobody")
    assert not [n for n in log.of(Notice) if n.text.startswith("attached")]
