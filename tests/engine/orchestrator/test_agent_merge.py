"""``/merge <agent>`` (SPEC 26): the agent's branch against the main tree, file by file through the approval's hunk
picker; kept hunks applied, changes on both sides merged when they do not overlap, conflicts named and never
written; one ``/undo`` takes the merge back."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from engine.command_results import AgentMerged
from engine.interaction import ApprovalAnswer, ApprovalDecision
from tests.engine.orchestrator.test_agents import git, make_repo
from tests.support.fakes import FakeInteraction, make_orchestrator
from tests.support.scenario import ReplyLike, reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

LINES = "".join(f"line {n}\n" for n in range(1, 21))


def changed(content: str, **lines: str) -> str:
    """``content`` with the numbered lines replaced (``l2="two"``)."""
    out = content.splitlines(keepends=True)
    for key, value in lines.items():
        out[int(key[1:]) - 1] = value + "\n"
    return "".join(out)


def agent_writes(body: dict[str, Any]) -> ReplyLike:
    if body["messages"][-1]["role"] == "user":
        return reply(
            tool_call("write", path="a.txt", content=changed(LINES, l2="two (agent)", l18="eighteen (agent)")),
            tool_call("write", path="b.txt", content=changed(LINES, l1="one (agent)")),
            tool_call("write", path="c.txt", content=changed(LINES, l5="five (agent)")),
            tool_call("write", path="new.txt", content="new\n"),
        )
    return reply(text("done"))


async def test_merge_applies_kept_hunks_merges_both_sides_names_conflicts_and_undoes_as_one_turn(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "repo")
    for name in ("a.txt", "b.txt", "c.txt"):
        (repo / name).write_text(LINES)
    git(repo, "add", "-A")
    git(repo, "commit", "--quiet", "-m", "files")
    interaction = FakeInteraction(
        approvals=[ApprovalAnswer(ApprovalDecision.YES, kept_hunks=(0,)), ApprovalDecision.YES, ApprovalDecision.NO]
    )
    with ScriptedServer(fallback=agent_writes) as server:
        orchestrator, log, _ = make_orchestrator(repo, server.base_url, interaction=interaction)
        await orchestrator.run_input("/spawn --mode yolo --name alpha agent alpha: change the files")
        await asyncio.wait_for(orchestrator.agents.wait("alpha"), 30)
        # Meanwhile the main tree changed b.txt apart from the agent's lines, and c.txt in the agent's line.
        main_b = changed(LINES, l10="ten (main)")
        main_c = changed(LINES, l5="five (main)")
        (repo / "b.txt").write_text(main_b)
        (repo / "c.txt").write_text(main_c)
        outcome = await orchestrator.run_input("/merge alpha")
        merged = {name: (repo / name).read_text() for name in ("a.txt", "b.txt", "c.txt")}
        await orchestrator.run_input("/undo")

    assert outcome.reason == "completed"
    asked = [request.key_argument for request in interaction.approval_requests]
    assert asked == ["a.txt", "b.txt", "new.txt"]
    assert all(request.tool == "write" and request.preview for request in interaction.approval_requests)
    assert merged["a.txt"] == changed(LINES, l2="two (agent)")  # the second hunk was dropped
    assert merged["b.txt"] == changed(LINES, l1="one (agent)", l10="ten (main)")
    assert merged["c.txt"] == main_c
    assert not (repo / "new.txt").exists()
    result = log.of(AgentMerged)[-1]
    assert result.applied == ("a.txt", "b.txt") and result.declined == ("new.txt",)
    assert result.conflicts == ({"path": "c.txt", "why": "changed on both sides in the same lines"},)
    assert "conflict, not written: c.txt" in result.text
    # One /undo took the whole merge back.
    assert (repo / "a.txt").read_text() == LINES
    assert (repo / "b.txt").read_text() == main_b
    assert (repo / "c.txt").read_text() == main_c
