"""SPEC 2, 6, 7: input dispatch, the bang branch and the slash command table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.command_results import CommandReply, ShellCommandRan
from engine.events import ModeChanged, ModelChanged, TurnFinished
from engine.modes import Mode
from tests.support.fakes import make_orchestrator
from tests.support.scripted_server import ScriptedServer


async def test_empty_input_does_nothing(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    outcome = await orch.run_input("   \n ")
    assert outcome.ok
    assert log.events == [] and scripted_server.requests == []


async def test_bang_runs_command_without_model(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    (tmp_path / "hello.txt").write_text("hi")
    orch, log, interaction = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.PLAN)
    outcome = await orch.run_input("!ls; echo oops >&2; exit 3")
    assert scripted_server.requests == []
    assert interaction.approval_requests == []
    (result,) = log.of(CommandReply)
    assert isinstance(result, ShellCommandRan) and result.ok is False
    assert result.exit_code == 3
    assert "hello.txt" in result.stdout and "oops" in result.stderr
    # The model sees it in later turns, as fixed-structure text.
    (message,) = orch.session.messages
    assert message.role == "user"
    assert "$ ls; echo oops >&2; exit 3" in message.content
    assert "exit code: 3" in message.content and "stdout:\nhello.txt" in message.content
    # A failing command fails the input, so `coder-tui -p '!make test'` exits non-zero.
    assert outcome.reason == "error" and outcome.error == "!ls; echo oops >&2; exit 3 exited with 3"


async def test_bang_runs_in_the_workspace_even_in_plan_mode(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.PLAN)
    await orch.run_input("!touch made-by-user.txt && pwd")
    assert (tmp_path / "made-by-user.txt").exists()
    assert log.of(ShellCommandRan)[0].stdout.strip() == str(tmp_path.resolve())


async def test_unknown_slash_command_gives_readable_error(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    outcome = await orch.run_input("/frobnicate now")
    assert outcome.reason == "error"
    (result,) = log.of(CommandReply)
    assert result.ok is False and result.text == "unknown command /frobnicate: type /help for the list"
    assert log.of(TurnFinished)[-1].reason == "error"


async def test_help_lists_every_command_and_the_input_rules(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("/help")
    (result,) = log.of(CommandReply)
    for name, _ in orch.slash_commands():
        assert name in result.text
    assert "Ctrl+J" in result.text and "Esc" in result.text and "Ctrl+D" in result.text
    assert {c["name"] for c in result.commands} == {n for n, _ in orch.slash_commands()}


@pytest.mark.parametrize(
    ("command", "mode"),
    [
        ("/plan", Mode.PLAN),
        ("/default", Mode.DEFAULT),
        ("/auto-edit", Mode.AUTO_EDIT),
        ("/build", Mode.AUTO_EDIT),
        ("/yolo", Mode.YOLO),
        ("/mode plan", Mode.PLAN),
        ("/mode build", Mode.AUTO_EDIT),
        ("/mode YOLO", Mode.YOLO),
    ],
)
async def test_mode_commands_and_aliases(
    tmp_path: Path, scripted_server: ScriptedServer, command: str, mode: Mode
) -> None:
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.DEFAULT if mode is not Mode.DEFAULT else Mode.PLAN)
    await orch.run_input(command)
    assert orch.mode is mode
    assert log.of(ModeChanged)[-1].mode == mode.value


async def test_mode_unknown_name_is_an_error(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    outcome = await orch.run_input("/mode turbo")
    assert outcome.reason == "error"
    assert "unknown mode 'turbo'" in log.of(CommandReply)[0].text
    assert orch.mode is Mode.DEFAULT


async def test_tools_lists_each_tool_with_its_state(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.PLAN)
    await orch.run_input("/tools")
    tools = {t["name"]: t["state"] for t in log.of(CommandReply)[0].tools}
    assert tools["read"] == "allow"
    assert tools["write"] == "blocked"


async def test_model_switches_and_persists(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    config_path = tmp_path / ".coder" / "config.json"
    config_path.parent.mkdir()
    config_path.write_text(json.dumps({"max_steps": 9}))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("/model deepseek-chat")
    assert orch.model == "deepseek-chat"
    assert log.of(ModelChanged)[-1].model == "deepseek-chat"
    assert json.loads(config_path.read_text()) == {"max_steps": 9, "model": "deepseek-chat"}


async def test_model_switch_survives_a_failed_write(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    config_path = tmp_path / ".coder" / "config.json"
    config_path.parent.mkdir()
    config_path.write_text("{not json")
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    outcome = await orch.run_input("/model other")
    assert outcome.ok
    assert orch.model == "other"
    assert "could not save" in log.of(CommandReply)[0].text
    assert config_path.read_text() == "{not json"


async def test_new_starts_an_empty_session(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("!echo one")
    first = orch.session_id
    await orch.run_input("/new")
    assert orch.session_id != first
    assert orch.session.messages == ()


async def test_bang_timeout_is_reported_plainly(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, bash={"max_timeout": 0.5})
    outcome = await orch.run_input("!echo started; sleep 20")
    (result,) = log.of(ShellCommandRan)
    assert result.ok is False and result.timed_out is True
    assert "started" in result.stdout
    assert "timed out after" in orch.session.messages[-1].content
    assert outcome.reason == "error" and "timed out" in (outcome.error or "")


async def test_model_without_argument_lists_the_servers_models(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("/model")
    (result,) = log.of(CommandReply)
    assert result.models == ("scripted-model",)
    assert "* scripted-model" in result.text
    assert scripted_server.requests[0].path == "/v1/models"


async def test_model_listing_failure_still_shows_the_model(tmp_path: Path) -> None:
    orch, log, _ = make_orchestrator(tmp_path, "http://127.0.0.1:9/v1")
    outcome = await orch.run_input("/model")
    (result,) = log.of(CommandReply)
    assert outcome.ok and result.text.startswith("model: scripted-model")
    assert "could not be listed" in result.text
