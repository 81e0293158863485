"""Issue 29 item 12: resuming a compacted session gives the same message count as ``/resume``'s list, and says
how much of it the model's context holds (the list said 64 messages, resuming said 46)."""

from __future__ import annotations

from pathlib import Path

from engine.command_results import CommandReply
from tests.engine.context.test_compaction_history import CompactingScript, compacted_twice, script, server  # noqa: F401
from tests.support.fakes import CREATED, EventLog
from tests.support.scripted_server import ScriptedServer


async def test_resume_says_the_listed_count_and_the_context_it_keeps(
    tmp_path: Path, server: ScriptedServer, script: CompactingScript  # noqa: F811
) -> None:
    await compacted_twice(tmp_path, server, script)
    orch = CREATED[-1]  # the session's own orchestrator: it starts a new session, then resumes the compacted one
    compacted = orch.session_id
    log = EventLog()
    orch.subscribe(log)
    await orch.run_input("/new")
    await orch.run_input("/resume")
    listed = log.of(CommandReply)[-1].sessions
    stored = next(row["message_count"] for row in listed if row["id"] == compacted)
    await orch.run_input(f"/resume {compacted}")
    said = log.of(CommandReply)[-1].text
    in_context = len(orch.session.messages)
    assert f"({stored} messages; the model's context holds {in_context} since its last compaction)" in said, said
