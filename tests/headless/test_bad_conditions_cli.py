"""Issue 11 finding 8 through the real CLI: an @-mention the file system refuses, an empty coder.db."""

from __future__ import annotations

from pathlib import Path

from tests.headless.test_headless_cli import run_cli
from tests.support.scenario import text
from tests.support.scripted_server import ScriptedServer


def test_mention_too_long_still_sends_the_request(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("answered"))
    done = run_cli(["-p", f"look at @{'x' * 300}"], tmp_path, scripted_server)
    assert done.returncode == 0, done.stderr
    assert "answered" in done.stdout
    assert "not attached: File name too long" in done.stderr and "Traceback" not in done.stderr
    assert len(scripted_server.requests) == 1


def test_continue_after_the_database_became_empty(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("first answer"), text("second answer"))
    assert run_cli(["-p", "first request"], tmp_path, scripted_server).returncode == 0
    database = tmp_path / ".coder" / "coder.db"
    for leftover in database.parent.glob("coder.db-*"):
        leftover.unlink()
    database.write_bytes(b"")
    done = run_cli(["--continue", "-p", "second request"], tmp_path, scripted_server)
    assert done.returncode == 0, done.stderr
    assert "was empty: rebuilt it from the session files" in done.stderr
    sent = scripted_server.requests[-1].body["messages"]
    assert [m["content"] for m in sent if m["role"] != "system"][:2] == ["first request", "first answer"]
