"""The engine process left running by its UI (SPEC 26): it stops reading the pipe and serves the clients that attach
over its socket, one at a time. The input still running goes on and the next client is told so; a client that
leaves without ``Shutdown`` leaves it waiting; ``Shutdown`` ends it; alone and idle past its limit it ends itself."""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.events import Notice, TextDelta
from engine.protocol import (
    Attached,
    Detach,
    Detached,
    EngineEvent,
    EngineReady,
    InputFinished,
    InputStarted,
    RunInput,
    Shutdown,
)
from tests.server.engine_client import CODEC, WAIT_S, EngineClient
from tests.support.scenario import reply, slow, text
from tests.support.scripted_server import ScriptedServer


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.fixture
def engine(workspace: Path, tmp_path: Path, scripted_server: ScriptedServer) -> Iterator[EngineClient]:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    client = EngineClient(workspace, scripted_server.base_url, env={"XDG_RUNTIME_DIR": str(runtime)})
    client.wait_for(lambda m: isinstance(m, EngineReady), "the engine to be ready")
    yield client
    if client.process.poll() is None:
        client.process.terminate()
    client.close()


class SocketClient:
    """A client attached over the engine's socket, reading protocol lines."""

    def __init__(self, path: str) -> None:
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.settimeout(WAIT_S)
        self.socket.connect(path)
        self._lines = self.socket.makefile("rb")
        self.received: list[Any] = []

    def send(self, message: Any) -> None:
        self.socket.sendall(CODEC.dumps(message).encode() + b"\n")

    def wait_for(self, condition: Callable[[Any], bool], what: str) -> Any:
        while line := self._lines.readline():
            message = CODEC.loads(line.decode())
            self.received.append(message)
            if condition(message):
                return message
        raise AssertionError(f"the connection closed while waiting for {what}")

    def close(self) -> None:
        self._lines.close()
        self.socket.close()


def detach(engine: EngineClient) -> str:
    engine.send(Detach())
    answer = engine.wait_for(lambda m: isinstance(m, Detached), "Detached")
    engine.process.stdin.close()  # type: ignore[union-attr]  # the UI is gone
    return str(answer.socket)


def test_the_input_running_goes_on_and_the_next_client_hears_it_end(
    engine: EngineClient, scripted_server: ScriptedServer
) -> None:
    answer = "the main session keeps streaming. " * 6
    scripted_server.add(slow(reply(text(answer)), delay=0.03))
    engine.send(RunInput("i1", "a long answer please"))
    engine.wait_for(lambda m: isinstance(m, EngineEvent) and isinstance(m.event, TextDelta), "the stream")
    path = detach(engine)

    client = SocketClient(path)
    greeting = client.wait_for(lambda m: True, "the greeting")
    client.wait_for(lambda m: isinstance(m, EngineReady), "the state")
    started = client.wait_for(lambda m: isinstance(m, InputStarted), "the input said to run")
    finished = client.wait_for(lambda m: isinstance(m, InputFinished), "the input to finish")
    client.send(Shutdown())
    code = engine.process.wait(WAIT_S)
    client.close()

    assert isinstance(greeting, Attached) and greeting.pid == engine.process.pid
    assert started.input_id == "i1"
    assert (finished.input_id, finished.reason, finished.text) == ("i1", "completed", answer)
    assert code == 0 and not Path(path).exists() and not Path(path).with_suffix(".json").exists()


def test_a_client_that_leaves_or_detaches_again_leaves_the_engine_waiting(engine: EngineClient) -> None:
    path = detach(engine)
    first = SocketClient(path)
    first.wait_for(lambda m: isinstance(m, EngineReady), "the state")
    first.close()  # its terminal closed
    second = SocketClient(path)
    second.wait_for(lambda m: isinstance(m, EngineReady), "the state")
    second.send(Detach())  # quit again, leaving the agents running
    again = second.wait_for(lambda m: isinstance(m, Detached), "Detached")
    second.close()
    third = SocketClient(path)
    greeting = third.wait_for(lambda m: True, "the greeting")
    third.close()
    assert again.socket == path
    assert isinstance(greeting, Attached)
    assert engine.process.poll() is None


@pytest.fixture
def short_idle_limit(workspace: Path) -> None:
    """The user's own config: a detached engine alone and idle for two seconds ends."""
    config = workspace.parent / "xdg" / "coder" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"agents": {"detached_idle_hours": 2 / 3600}}))


@pytest.mark.usefixtures("short_idle_limit")
def test_a_detached_engine_alone_and_idle_past_its_limit_ends(workspace: Path, tmp_path: Path,
                                                               scripted_server: ScriptedServer) -> None:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    engine = EngineClient(workspace, scripted_server.base_url, env={"XDG_RUNTIME_DIR": str(runtime)})
    engine.wait_for(lambda m: isinstance(m, EngineReady), "the engine to be ready")
    path = detach(engine)
    try:
        code = engine.process.wait(WAIT_S)
    except subprocess.TimeoutExpired:
        engine.process.kill()
        raise
    assert code == 0
    assert not Path(path).exists()


def test_an_engine_started_beside_one_left_running_says_where_the_agents_are(
    engine: EngineClient, workspace: Path, tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    detach(engine)
    beside = EngineClient(workspace, scripted_server.base_url, env={"XDG_RUNTIME_DIR": str(tmp_path / "run")})
    try:
        beside.wait_for(lambda m: isinstance(m, EngineReady), "the second engine to be ready")
    finally:
        beside.close()
    notices = [m.event.text for m in beside.received if isinstance(m, EngineEvent) and isinstance(m.event, Notice)]
    assert any(f"another engine (pid {engine.process.pid})" in notice and "coder-tui --attach" in notice
               for notice in notices), notices
