"""SPEC 18, prompt caching: the requests of a session keep their prefix. Each request, as the scripted server
received it, starts with the bytes of the one before up to the end of its last message, across tool steps and
turns, while the git status and the mode change in between (told to the model in a reminder on the next user
message, never by rewriting the system prompt); ``prompt_cache_key`` is the session's id where the server takes it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from engine.modes import Mode
from tests.engine.workflow.test_turn_wiring import TurnScript, server_with, turn_requests  # noqa: F401 (fixture)
from tests.support.fakes import make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


def _git_repository(folder: Path) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "HOME": str(folder)}
    (folder / "a.py").write_text("print('a')\n")
    for args in (["init", "-q"], ["add", "a.py"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a"]):
        subprocess.run(["git", *args], cwd=folder, env=env, check=True)


def _up_to_last_message(body: bytes) -> bytes:
    """The request's bytes up to the end of its last message (its tools and options follow)."""
    return body[: body.rindex(b'], "tools": ')]


async def test_consecutive_requests_share_their_prefix(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    _git_repository(tmp_path)
    scripted_server.add(
        reply(tool_call("write", path="b.py", content="print('b')\n")),
        text("Wrote b.py."),
        reply(tool_call("read", path="b.py")),
        text("It prints b."),
    )
    orchestrator, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.YOLO)

    assert (await orchestrator.run_input("write b.py")).ok
    orchestrator.set_mode(Mode.AUTO_EDIT)
    assert (await orchestrator.run_input("what does b.py print?")).ok

    bodies = [request.raw for request in scripted_server.requests]
    assert len(bodies) == 4
    for before, after in zip(bodies, bodies[1:]):
        assert after.startswith(_up_to_last_message(before))
    # What changed reached the model in the second turn's user message.
    question = scripted_server.requests[2].body["messages"][-1]["content"]
    assert question.startswith("what does b.py print?\n\n<system-reminder>\n")
    assert "Mode: auto-edit." in question and "Git status: 1 changed file(s)" in question
    assert "Mode: yolo." in scripted_server.requests[2].body["messages"][0]["content"]


async def test_nothing_changed_means_no_reminder(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("one"), text("two"))
    orchestrator, _, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    assert (await orchestrator.run_input("first")).ok
    assert (await orchestrator.run_input("second")).ok
    assert scripted_server.requests[1].body["messages"][-1]["content"] == "second"


async def test_a_compaction_writes_the_system_prompt_afresh(tmp_path: Path, server_with: Any) -> None:
    """A compaction changes the prefix anyway: the system prompt then says what the reminders told since."""
    long_answer = " ".join(f"Point {number}: the parser reads part {number * 7} of the input." for number in range(80))
    server = server_with(TurnScript(text(long_answer), text(long_answer), text("Third answer.")))
    orchestrator, _, _ = make_orchestrator(tmp_path, server.base_url)
    assert (await orchestrator.run_input("first question")).ok
    orchestrator.set_mode(Mode.AUTO_EDIT)
    assert (await orchestrator.run_input("second question")).ok
    second = turn_requests(server)[-1]["messages"]
    assert "Mode: default." in second[0]["content"] and "Mode: auto-edit." in second[-1]["content"]
    assert (await orchestrator.run_input("/compact")).ok
    assert (await orchestrator.run_input("third question")).ok
    third = turn_requests(server)[-1]["messages"]
    assert "Mode: auto-edit." in third[0]["content"] and third[-1]["content"] == "third question"


@pytest.mark.parametrize(("setting", "sent"), [(None, False), (True, True), (False, False)])
async def test_prompt_cache_key_is_the_session_id_where_the_server_takes_it(
    setting: bool | None, sent: bool, tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(text("one"))
    provider = {"base_url": scripted_server.base_url, "prompt_cache_key": setting}
    orchestrator, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, provider=provider)
    assert (await orchestrator.run_input("hi")).ok
    body = scripted_server.requests[0].body
    assert body.get("prompt_cache_key") == (orchestrator.session.id if sent else None)
