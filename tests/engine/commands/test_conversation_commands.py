"""SPEC 23: /clear, /fork, /copy, /quit, /status and /theme."""

from __future__ import annotations

import json
import os
from pathlib import Path

from engine.command_results import CommandReply, ExitRequested
from engine.commands.theme import THEMES
from engine.events import UsageUpdated
from engine.modes import Mode
from tests.support.fakes import make_orchestrator
from tests.support.scenario import reply, text
from tests.support.scripted_server import ScriptedServer


async def test_clear_starts_a_new_conversation_and_the_old_one_stays_resumable(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(text("Hello there.")))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("hi")
    old = orch.session_id
    await orch.run_input("/clear")
    result = log.of(CommandReply)[-1]
    assert result.ok and result.previous_session_id == old
    assert orch.session_id != old and orch.session.messages == ()
    assert old in [s.id for s in orch.store.sessions.summaries()]
    await orch.run_input(f"/resume {old}")
    assert [m.content for m in orch.session.messages] == ["hi", "Hello there."]


async def test_fork_copies_the_history_into_a_new_session_and_keeps_the_original(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(text("First answer.")), reply(text("Answer in the fork.")))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("question one")
    original = orch.session_id
    await orch.run_input("/fork")
    result = log.of(CommandReply)[-1]
    assert result.ok and result.forked_from == original and orch.session_id == result.session_id
    assert [m.content for m in orch.session.messages] == ["question one", "First answer."]
    await orch.run_input("question two")
    # The fork's next request carries the copied history; the original session did not change.
    assert [m["content"] for m in scripted_server.requests[-1].body["messages"][1:]] == [
        "question one", "First answer.", "question two"
    ]
    assert len(orch.store.conversation.load(original).messages) == 2
    assert len(orch.store.conversation.load(orch.session_id).messages) == 4
    snapshot = json.loads(orch.session.path.read_text())
    assert [m["content"] for m in snapshot["messages"] if m["role"] != "system"][:2] == ["question one", "First answer."]


async def test_a_fork_tells_how_much_context_it_holds(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    """A fork starts with the copied history: the context meter shows its size, as after a resume (``--fork`` at
    launch showed 0 for a session of several messages)."""
    scripted_server.add(reply(text("First answer.")))
    first, _, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await first.run_input("question one")
    await first.aclose()
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("/fork --last")
    assert log.of(CommandReply)[-1].ok
    assert log.of(UsageUpdated)[-1].context_tokens > 0


async def test_copy_returns_the_last_answer_or_an_earlier_one(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("Answer one.")), reply(text("Answer two.")))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("/copy")
    assert log.of(CommandReply)[-1].ok is False
    await orch.run_input("a")
    await orch.run_input("b")
    await orch.run_input("/copy")
    assert log.of(CommandReply)[-1].copy_text == "Answer two."
    await orch.run_input("/copy 2")
    assert log.of(CommandReply)[-1].copy_text == "Answer one."
    await orch.run_input("/copy 3")
    failed = log.of(CommandReply)[-1]
    assert not failed.ok and "has 2" in failed.text
    await orch.run_input("/copy last")
    assert "takes a number" in log.of(CommandReply)[-1].text


async def test_quit_and_exit_ask_the_front_end_to_exit(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("/quit")
    await orch.run_input("/exit")
    assert [type(r) for r in log.of(CommandReply)] == [ExitRequested, ExitRequested]


async def test_status_names_model_url_session_mode_and_context(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("Hi.")))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.AUTO_EDIT)
    await orch.run_input("hello")
    await orch.run_input("/status")
    result = log.of(CommandReply)[-1]
    assert result.ok and result.model == "scripted-model"
    assert result.base_url == scripted_server.base_url and result.session_id == orch.session_id
    assert result.mode == "auto-edit" and 0 < result.context_tokens < result.context_window
    assert scripted_server.base_url in result.text and orch.session_id in result.text
    assert result.trusted is False and "not trusted" in result.text
    assert result.mcp_servers == {} and "none configured (/mcp)" in result.text
    orch.trusted_for_run = True
    await orch.run_input("/status")
    assert "trusted for this run (--trust)" in log.of(CommandReply)[-1].text


async def test_theme_is_checked_and_saved_in_the_user_config(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("/theme")
    assert log.of(CommandReply)[-1].theme == "textual-dark"
    await orch.run_input("/theme no-such-theme")
    assert not log.of(CommandReply)[-1].ok and "nord" in log.of(CommandReply)[-1].text
    await orch.run_input("/theme Nord")
    assert log.of(CommandReply)[-1].theme == "nord" and orch.theme == "nord"
    saved = Path(os.environ["XDG_CONFIG_HOME"]) / "coder" / "config.json"
    assert json.loads(saved.read_text()) == {"theme": "nord"}


def test_theme_list_is_textuals_builtin_set() -> None:
    from textual.theme import BUILTIN_THEMES

    assert set(THEMES) == set(BUILTIN_THEMES)
