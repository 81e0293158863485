"""The socket a detached engine waits on (SPEC 26, ``coder-tui --attach``) is its whole control surface: a client
attached there answers approvals and reads the sessions. Only its own user reaches it, and neither end trusts a path
that was swapped: a world-writable folder, a link in place of the socket or of its folder, a socket open to others,
a process of another user at either end. Each attack is made for real, and what it reached is asserted."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

import pytest

from coder_tui.link.engine_socket import AttachError, attach_engine
from engine.protocol import CODEC, Attached, Detach, Detached, DetachFailed, EngineReady, RunInput
from engine.server.rendezvous import FOLDER_NAME, rendezvous_for
from tests.server.engine_client import EngineClient
from tests.support.scripted_server import ScriptedServer

NOBODY = 65534
as_root = pytest.mark.skipif(os.getuid() != 0, reason="running a process as another user needs root")


@pytest.fixture
def runtime(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The user's runtime folder (``$XDG_RUNTIME_DIR``), directly under /tmp so another user can be let in."""
    folder = Path(tempfile.mkdtemp(prefix="run-", dir="/tmp"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(folder))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root.resolve()


Start = Callable[[], EngineClient]


@pytest.fixture
def start_engine(workspace: Path, runtime: Path, scripted_server: ScriptedServer) -> Iterator[Start]:
    """Starts the engine process with the test's runtime folder; ends it (SIGTERM) after the test."""
    started: list[EngineClient] = []

    def start() -> EngineClient:
        client = EngineClient(workspace, scripted_server.base_url, env={"XDG_RUNTIME_DIR": str(runtime)})
        client.wait_for(lambda m: isinstance(m, EngineReady), "the engine to be ready")
        started.append(client)
        return client

    yield start
    for client in started:
        client.process.terminate()
        client.close()


def detached(start_engine: Start) -> tuple[EngineClient, Path]:
    client = start_engine()
    client.send(Detach())
    answer = client.wait_for(lambda m: isinstance(m, Detached | DetachFailed), "the answer to Detach")
    assert isinstance(answer, Detached), answer
    return client, Path(answer.socket)


def listener(path: Path) -> socket.socket:
    """An attacker's socket, listening, that never blocks: ``accept`` raises when no one came."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen()
    server.setblocking(False)
    return server


def nobody_came(server: socket.socket) -> bool:
    try:
        server.accept()[0].close()
    except BlockingIOError:
        return True
    return False


def test_a_world_writable_socket_folder_is_refused_by_the_engine_and_by_the_client(
    start_engine: Start, workspace: Path, runtime: Path, tmp_path: Path
) -> None:
    folder = runtime / FOLDER_NAME
    folder.mkdir()
    folder.chmod(0o777)
    client = start_engine()
    client.send(Detach())
    answer = client.wait_for(lambda m: isinstance(m, Detached | DetachFailed), "the answer to Detach")
    assert isinstance(answer, DetachFailed) and "open to other users" in answer.message
    assert list(folder.iterdir()) == []  # the engine listens nowhere

    # Someone who can write there puts a socket where the engine's would be: the client never connects to it.
    planted = listener(rendezvous_for(workspace).socket)
    with pytest.raises(AttachError, match="open to other users"):
        attach_engine(workspace)
    assert nobody_came(planted)


@pytest.mark.parametrize("swapped", ["socket", "folder"])
def test_a_socket_or_folder_swapped_for_a_link_is_refused(
    start_engine: Start, workspace: Path, runtime: Path, tmp_path: Path, swapped: str
) -> None:
    _, path = detached(start_engine)
    elsewhere = Path(tempfile.mkdtemp(prefix="elsewhere-", dir="/tmp"))
    try:
        planted = listener(elsewhere / path.name)
        if swapped == "socket":
            path.unlink()
            path.symlink_to(elsewhere / path.name)
        else:
            path.parent.rename(runtime / "moved-away")
            path.parent.symlink_to(elsewhere)
        with pytest.raises(AttachError, match=r"not a (socket|folder) \(a link"):
            attach_engine(workspace)
        assert nobody_came(planted)
    finally:
        shutil.rmtree(elsewhere, ignore_errors=True)


def test_a_socket_open_to_other_users_is_refused(start_engine: Start, workspace: Path) -> None:
    _, path = detached(start_engine)
    path.chmod(0o666)
    with pytest.raises(AttachError, match="open to other users"):
        attach_engine(workspace)
    path.chmod(0o600)
    attach_engine(workspace)  # the same engine, as it should be: attached


def test_the_rendezvous_file_names_the_engine_and_holds_no_secret(start_engine: Start, workspace: Path) -> None:
    client, path = detached(start_engine)
    info = path.with_suffix(".json")
    assert oct(info.stat().st_mode & 0o777) == "0o600"
    written = info.read_text()
    assert str(client.process.pid) in written and str(workspace) in written
    assert "sk-test" not in written and "OPENAI" not in written


def as_nobody(work: Callable[[Callable[[str], None]], None]) -> tuple[int, BinaryIO]:
    """Runs ``work`` in a forked process of user nobody; what it reports (lines) comes through the pipe returned."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the other user's process: sockets and os calls only, then out
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            work(lambda line: os.write(write, line.encode() + b"\n") and None)
        finally:
            os._exit(0)
    os.close(write)
    return pid, os.fdopen(read, "rb")


def connect_and_read(path: Path, command: str) -> Callable[[Callable[[str], None]], None]:
    def work(report: Callable[[str], None]) -> None:
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.settimeout(5)
        client.connect(str(path))
        client.sendall(CODEC.dumps(RunInput("x", command)).encode() + b"\n")
        received = b""
        with contextlib.suppress(OSError):
            while chunk := client.recv(65536):
                received += chunk
        report(str(len(received)))

    return work


@as_root
def test_a_client_of_another_user_is_closed_without_a_word(start_engine: Start, workspace: Path, runtime: Path) -> None:
    """With the folder and socket modes opened (as if they failed), the engine's own check of the peer's user
    still turns another user away: it hears nothing of the sessions, and what it sent never runs."""
    _, path = detached(start_engine)
    runtime.chmod(0o711)
    path.parent.chmod(0o711)
    path.chmod(0o666)
    marker = workspace / "reached.txt"
    pid, reports = as_nobody(connect_and_read(path, f"!touch {marker}"))
    heard = reports.readline()
    os.waitpid(pid, 0)
    assert heard == b"0\n"  # not even the greeting
    assert not marker.exists()
    path.parent.chmod(0o700)
    path.chmod(0o600)
    attach_engine(workspace)  # no UI became attached by it


def listen_and_greet(path: Path, greeting: str) -> Callable[[Callable[[str], None]], None]:
    def work(report: Callable[[str], None]) -> None:
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(str(path))
        server.listen()
        report("listening")
        server.settimeout(20)
        connection, _ = server.accept()
        connection.settimeout(3)
        received = b""
        with contextlib.suppress(OSError):
            connection.sendall(greeting.encode() + b"\n")
            while chunk := connection.recv(65536):
                received += chunk
        report(str(len(received)))

    return work


@as_root
def test_a_listener_of_another_user_behind_a_socket_that_looks_right_is_refused(
    workspace: Path, runtime: Path
) -> None:
    """Another user's process listens behind a socket file with our owner and modes in our folder: the client
    checks the listening process itself and says nothing to it, however well it greets."""
    found = rendezvous_for(workspace)
    found.folder.mkdir(mode=0o700)
    theirs = Path(tempfile.mkdtemp(prefix="theirs-", dir="/tmp"))
    theirs.chmod(0o777)
    try:
        pid, reports = as_nobody(listen_and_greet(theirs / "engine.sock", CODEC.dumps(Attached(4242, str(workspace)))))
        assert reports.readline() == b"listening\n"
        os.rename(theirs / "engine.sock", found.socket)
        os.chown(found.socket, os.getuid(), os.getgid())
        found.socket.chmod(0o600)
        with pytest.raises(AttachError, match=f"is user {NOBODY}'s"):
            attach_engine(workspace)
        heard = reports.readline()
        os.waitpid(pid, 0)
        assert heard == b"0\n"  # it heard nothing from the client
    finally:
        shutil.rmtree(theirs, ignore_errors=True)
