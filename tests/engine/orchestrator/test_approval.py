"""SPEC 5 steps 2-4 in the chain: reasons merged into one interaction, "always" remembered for the session."""

from __future__ import annotations

import json
from pathlib import Path

from engine.events import Notice, ToolCallAwaitingApproval
from engine.interaction import ApprovalDecision
from engine.modes import Mode
from tests.support.fakes import FakeInteraction, make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


async def test_policy_and_tool_reasons_make_one_interaction(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    (tmp_path / "notes.txt").write_text("old\n")
    scripted_server.add(reply(tool_call("write", path="notes.txt", content="new\n")), text("ok"))
    orch, log, interaction = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("overwrite notes")
    (request,) = interaction.approval_requests
    assert any("not read in this session" in r for r in request.reasons)
    assert len(request.reasons) >= 2
    assert request.preview is not None and "-old" in request.preview and "+new" in request.preview
    (awaiting,) = log.of(ToolCallAwaitingApproval)
    assert awaiting.reasons == request.reasons


async def test_always_allows_the_command_prefix_for_the_session(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(
        reply(tool_call("bash", command="mkdir -p build")),
        reply(tool_call("bash", command="mkdir -p dist")),
        reply(tool_call("bash", command="touch other")),
        text("done"),
    )
    interaction = FakeInteraction([ApprovalDecision.ALWAYS, ApprovalDecision.NO])
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, interaction=interaction)
    await orch.run_input("make folders")
    assert [r.key_argument for r in interaction.approval_requests] == ["mkdir -p build", "touch other"]
    first = interaction.approval_requests[0]
    assert first.always_scope is not None and "mkdir" in first.always_scope
    assert (tmp_path / "build").is_dir() and (tmp_path / "dist").is_dir()
    assert not (tmp_path / "other").exists()
    assert any("mkdir" in n.text for n in log.of(Notice))


async def test_always_on_a_risky_command_is_yes_once(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    (tmp_path / "junk").mkdir()
    scripted_server.add(
        reply(tool_call("bash", command="rm -rf junk")),
        reply(tool_call("bash", command="rm -rf junk2")),
        text("done"),
    )
    interaction = FakeInteraction([ApprovalDecision.ALWAYS, ApprovalDecision.NO])
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, interaction=interaction)
    await orch.run_input("clean")
    # The second rm -rf asked again: a risk reason always asks.
    assert len(interaction.approval_requests) == 2
    assert not (tmp_path / "junk").exists()


async def test_config_deny_pattern_denies_without_asking(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("bash", command="git push origin main")), text("blocked"))
    orch, _, interaction = make_orchestrator(
        tmp_path, scripted_server.base_url, mode=Mode.AUTO_EDIT, permissions={"bash": {"git push *": "deny"}}
    )
    await orch.run_input("push")
    assert interaction.approval_requests == []
    messages = scripted_server.requests[1].body["messages"]
    (tool,) = [m for m in messages if m["role"] == "tool"]
    error = json.loads(tool["content"])["error"]
    assert error.startswith("denied by policy") and "git push" in error


async def test_read_only_bash_runs_without_asking_in_default_mode(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    scripted_server.add(reply(tool_call("bash", command="ls -la && cat a.txt | wc -l")), text("ok"))
    orch, _, interaction = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("look")
    assert interaction.approval_requests == []


async def test_always_for_this_project_is_saved_and_holds_in_a_new_session(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    from engine.config import load_config

    config_path = tmp_path / ".coder" / "config.json"
    config_path.parent.mkdir()
    config_path.write_text(json.dumps({"max_steps": 9}))
    scripted_server.add(reply(tool_call("bash", command="mkdir -p build")), text("done"))
    interaction = FakeInteraction([ApprovalDecision.ALWAYS_PROJECT])
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, interaction=interaction)
    await orch.run_input("make build")
    saved = json.loads(config_path.read_text())
    assert saved["max_steps"] == 9
    assert saved["permissions"]["bash"] == {"mkdir *": "allow"}
    assert any("saved in" in n.text for n in log.of(Notice))
    # A later session of the project (trusted: SPEC 19) loads the rule: the same prefix no longer asks.
    permissions = load_config(tmp_path, env={}, trust=True).config.permissions
    scripted_server.add(reply(tool_call("bash", command="mkdir -p dist")), text("done"))
    later, _, later_interaction = make_orchestrator(
        tmp_path, scripted_server.base_url, permissions=permissions.model_dump()
    )
    await later.run_input("make dist")
    assert later_interaction.approval_requests == []
    assert (tmp_path / "dist").is_dir()


async def test_always_here_in_an_untrusted_folder_says_the_rule_waits_for_trust(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    """SPEC 19: "Always here" in a folder that is not trusted is honest: the rule holds for this session, and
    later sessions use it only once the folder is trusted (they really do not before)."""
    from engine.config import load_config

    scripted_server.add(reply(tool_call("bash", command="mkdir -p build")), text("done"))
    interaction = FakeInteraction([ApprovalDecision.ALWAYS_PROJECT])
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, interaction=interaction)
    assert not orch.project_trusted
    await orch.run_input("make build")
    (notice,) = [n for n in log.of(Notice) if "saved in" in n.text]
    assert "not trusted" in notice.text and "/trust on" in notice.text and notice.level == "warning"
    assert load_config(tmp_path, env={}).config.permissions.bash.get("mkdir *") is None
