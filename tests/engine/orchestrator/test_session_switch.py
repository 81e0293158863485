"""Resuming a session (issue 13 items 4 and 5): ``/resume`` tells the front end the context, todos and model of the
session now in view, and a model named on the command line or by CODER_MODEL wins over the one the resumed session
stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.events import ModelChanged, TodosChanged, UsageUpdated
from engine.orchestrator.orchestrator import Orchestrator
from tests.support.fakes import CREATED, EventLog, FakeInteraction, make_config, make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

TODOS = [{"id": "1", "content": "Fix the pager", "status": "in_progress"}]


async def stored_session(workspace: Path, server: ScriptedServer, model: str) -> str:
    """A session of two exchanges (4 messages) and a todo list, made with ``model``."""
    server.add(reply(tool_call("todowrite", todos=TODOS)), reply(text("planned")), reply(text("done")))
    orchestrator, _, _ = make_orchestrator(workspace, server.base_url, model=model)
    await orchestrator.run_input("plan the pager fix")
    await orchestrator.run_input("and now?")
    await orchestrator.aclose()  # its process ends: one owns a session at a time (SPEC 21)
    return orchestrator.session_id


def orchestrator_with(workspace: Path, server: ScriptedServer, *, env: dict[str, str], pinned: bool,
                      model: str) -> tuple[Orchestrator, EventLog]:
    orchestrator = Orchestrator(
        workspace=workspace,
        config=make_config(server.base_url, model=model),
        interaction=FakeInteraction(),
        env={"OPENAI_API_KEY": "sk-test-key", **env},
        model_pinned=pinned,
    )
    CREATED.append(orchestrator)
    log = EventLog()
    orchestrator.subscribe(log)
    return orchestrator, log


async def test_resume_announces_the_context_the_next_request_sends(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    await stored_session(tmp_path, scripted_server, "scripted-model")
    orchestrator, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    orchestrator.token_counter.load()  # loaded (near the threshold, say): the count is exact
    await orchestrator.run_input("/resume --last")
    announced = log.of(UsageUpdated)[-1]
    session = orchestrator.session
    assert len(session.messages) >= 4
    scripted_server.add(reply(text("go on")))
    await orchestrator.run_input("next")  # the request the count was for, less the new message
    sent = orchestrator.token_counter.total(
        session.messages[:-2], system=session.system_prompt, tools=session.tools
    )
    assert announced.context_tokens == sent
    assert announced.context_tokens > orchestrator.token_counter.total(session.messages[:-2])
    assert [todo.content for todo in log.of(TodosChanged)[-1].todos] == ["Fix the pager"]


async def test_resume_estimates_the_context_without_loading_the_encoding(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    await stored_session(tmp_path, scripted_server, "scripted-model")
    orchestrator, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orchestrator.run_input("/resume --last")
    announced = log.of(UsageUpdated)[-1]
    assert not orchestrator.token_counter.ready  # issue 32: tens of megabytes not loaded for the meter alone
    session = orchestrator.session
    exact = orchestrator.token_counter.total(session.messages, system=session.system_prompt, tools=session.tools)
    assert exact / 2 <= announced.context_tokens <= exact * 2


@pytest.mark.parametrize(
    ("env", "pinned"),
    [({"CODER_MODEL": "fake-model"}, False), ({}, True)],
    ids=["CODER_MODEL", "--model"],
)
async def test_a_model_set_by_flag_or_environment_wins_over_the_stored_one(
    tmp_path: Path, scripted_server: ScriptedServer, env: dict[str, str], pinned: bool
) -> None:
    session_id = await stored_session(tmp_path, scripted_server, "gpt-4o-mini")
    orchestrator, log = orchestrator_with(tmp_path, scripted_server, env=env, pinned=pinned, model="fake-model")
    scripted_server.add(reply(text("hello again")))
    await orchestrator.run_input(f"/resume {session_id}")
    assert orchestrator.model == "fake-model"
    assert log.of(ModelChanged)[-1].model == "fake-model"
    await orchestrator.run_input("go on")
    assert scripted_server.requests[-1].body["model"] == "fake-model"
    assert orchestrator.store.conversation.load(session_id).info.model == "fake-model"


async def test_without_a_flag_or_environment_resume_takes_the_stored_model(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    session_id = await stored_session(tmp_path, scripted_server, "gpt-4o-mini")
    orchestrator, _ = orchestrator_with(tmp_path, scripted_server, env={}, pinned=False, model="scripted-model")
    await orchestrator.run_input(f"/resume {session_id}")
    assert orchestrator.model == "gpt-4o-mini"
