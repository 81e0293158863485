"""Issue 18 with /export: the export is the whole history: every epoch's messages, one "context compacted here"
marker per compaction, and each edit's diff as it was shown."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.engine.context.test_compaction_history import FILLER, CompactingScript
from tests.support.fakes import make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


@pytest.fixture
def script() -> CompactingScript:
    return CompactingScript()


@pytest.fixture
def server(script: CompactingScript) -> Iterator[ScriptedServer]:
    started = ScriptedServer(fallback=script).start()
    yield started
    started.stop()


async def test_export_after_two_compactions_holds_every_epoch_both_markers_and_the_diffs(
    tmp_path: Path, server: ScriptedServer, script: CompactingScript
) -> None:
    script.add(
        reply(tool_call("write", id="w1", path="notes.txt", content="one\n")),
        text(f"Written. {FILLER}"),
        reply(tool_call("edit", id="e1", path="notes.txt", old_string="one", new_string="two")),
        text(f"Edited. {FILLER}"),
    )
    orch, _, _ = make_orchestrator(tmp_path, server.base_url)
    try:
        for request in ("create notes.txt", "/compact", "change one to two", "/compact", "/export out.md"):
            outcome = await orch.run_input(request)
            assert outcome.ok, outcome
    finally:
        await orch.aclose()
    exported = (tmp_path / "out.md").read_text()
    assert exported.count("*Context compacted here") == 2
    assert "SUMMARY 1" in exported and "SUMMARY 2" in exported
    for said in ("create notes.txt", "Written.", "change one to two", "Edited."):
        assert said in exported
    first_epoch, _, later = exported.partition("*Context compacted here")
    assert "create notes.txt" in first_epoch and "change one to two" in later
    assert "```diff\n--- /dev/null\n+++ b/notes.txt\n@@ -0,0 +1 @@\n+one\n```" in exported
    assert "-one\n+two" in exported


async def test_export_puts_each_outcome_note_and_reminder_under_its_own_heading(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    """Issue 43 item 12: the system reminder coder-tui added is not the user's words, the `/undo` note is not a
    request, and a denied call says so."""
    from engine.interaction import ApprovalAnswer, ApprovalDecision
    from tests.support.fakes import FakeInteraction

    request = "1. write a.txt 2. write b.txt"
    scripted_server.add(
        reply(
            tool_call("write", id="w1", path="a.txt", content="a\n"),
            tool_call("write", id="w2", path="b.txt", content="b\n"),
        ),
        text("Wrote a.txt."),
    )
    interaction = FakeInteraction([ApprovalDecision.YES, ApprovalAnswer(ApprovalDecision.NO, "not b")])
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, interaction=interaction)
    try:
        for line in (request, "/undo", "/export out.md"):
            assert (await orch.run_input(line)).ok
    finally:
        await orch.aclose()
    exported = (tmp_path / "out.md").read_text()
    user, _, rest = exported.partition(f"## User\n\n{request}\n\n")
    added, _, rest = rest.partition("## Assistant")
    assert added.startswith("### Added by coder-tui") and "<system-reminder>" in added
    assert "<system-reminder>" not in user
    assert "**Result** of `write`\n" in rest and "**Result** of `write` (denied)\n" in rest
    note = rest.partition("## Note to the model\n\n")[2]
    assert note.startswith("[The user undid the file changes of an earlier turn")
    assert "## User" not in rest
