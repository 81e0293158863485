"""MCP test helpers: server definitions for the real servers from the package index and the broken test server,
an orchestrator wired to the scripted model server with them, and cleanup of every orchestrator a test made."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.events import Notice
from tests.support.fakes import close_created

REPO = Path(__file__).resolve().parents[3]


def broken(*args: str, **extra: Any) -> dict[str, Any]:
    """The broken test server over stdio, in one of its modes."""
    env = {"PYTHONPATH": str(REPO), **extra.pop("env", {})}
    return {"command": sys.executable, "args": ["-m", "tests.engine.mcp.broken_server", *args], "env": env, **extra}


def time_server() -> dict[str, Any]:
    return {"command": "mcp-server-time"}


def git_server(repository: Path) -> dict[str, Any]:
    return {"command": "mcp-server-git", "args": ["--repository", str(repository)]}


@pytest.fixture(autouse=True)
def user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test gets its own (empty) user config folder: no developer's trust list or servers leak in."""
    folder = tmp_path / "user-config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder))
    return folder


@pytest.fixture(autouse=True)
async def close_orchestrators() -> AsyncIterator[None]:
    yield
    await close_created()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    """The broken test server's tools over streamable HTTP (the SDK's MCPServer, FastMCP in SDK 1.x), on
    127.0.0.1; yields its URL."""
    yield from _served(tmp_path, "--http", "/mcp")


@pytest.fixture
def sse_server(tmp_path: Path) -> Iterator[str]:
    """The same over the older SSE transport; yields its URL."""
    yield from _served(tmp_path, "--sse", "/sse")


@pytest.fixture
def oauth_server(tmp_path: Path) -> Iterator[str]:
    """An MCP server behind OAuth (``oauth_server``: its own authorization server, consenting at once), on
    127.0.0.1; yields its URL."""
    yield from _served(tmp_path, "", "/mcp", module="tests.engine.mcp.oauth_server")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def preregistered_server(tmp_path: Path) -> Iterator[tuple[str, int]]:
    """``oauth_server`` whose owner registered one client beforehand (``coder-ci``, secret ``s3cret``, returning to
    the yielded port) and which offers no dynamic registration; yields its URL and that port."""
    callback = free_port()
    for url in _served(tmp_path, "", "/mcp", module="tests.engine.mcp.oauth_server",
                       extra=[f"coder-ci:s3cret:{callback}"]):
        yield url, callback


def _served(
    tmp_path: Path, transport: str, path: str, module: str = "tests.engine.mcp.broken_server",
    extra: list[str] | None = None,
) -> Iterator[str]:
    # The port stays bound (not listening) until the server listens on it, so that no other process (a test running
    # in parallel) takes it meanwhile; the server binds it too, as both ask for address reuse.
    held = socket.socket()
    held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    held.bind(("127.0.0.1", 0))
    port = held.getsockname()[1]
    log = open(tmp_path / f"server{transport or '-oauth'}.log", "w")
    arguments = [*(["serve", transport, str(port)] if transport else [str(port)]), *(extra or [])]
    process = subprocess.Popen(
        [sys.executable, "-m", module, *arguments],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        with held:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and process.poll() is None:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                    break
                except OSError:
                    time.sleep(0.1)
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        process.terminate()
        try:
            # uvicorn waits for open streams to end, and the test's client still holds one when its orchestrator
            # is closed after this fixture: the test is over, the server need not end gracefully.
            process.wait(0.5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
        log.close()


def warnings(events: list[Any]) -> list[str]:
    return [e.text for e in events if isinstance(e, Notice) and e.level == "warning"]


@pytest.fixture(autouse=True)
def interpreter_bin_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference servers (`mcp-server-time`, `mcp-server-git`) are console scripts beside the interpreter, which
    need not be on PATH (a virtualenv not activated); a user names them by an absolute path in that case."""
    scripts = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", os.pathsep.join([scripts, os.environ.get("PATH", "")]))
