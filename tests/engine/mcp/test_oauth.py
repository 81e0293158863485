"""OAuth for HTTP MCP servers (SPEC 22), against a server with its own authorization server (``oauth_server``):
the sign-in address shown, the browser's return caught on 127.0.0.1, the tokens kept 0600 in the user's config
folder (not the project), and used again on the next start without asking. A 401 from a server with no OAuth says
so, with the status."""

from __future__ import annotations

import asyncio
import json
import stat
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx2
import pytest

from engine.events import Notice
from engine.mcp.connection import ServerState
from tests.engine.mcp.test_servers import eventually
from tests.support.fakes import make_orchestrator

SIGN_IN = "needs you to sign in: open "


def sign_in_address(notices: list[Notice]) -> str | None:
    for notice in notices:
        if SIGN_IN in notice.text:
            return notice.text.split(SIGN_IN, 1)[1].split(" ", 1)[0]
    return None


async def test_sign_in_then_the_kept_tokens(workspace: Path, oauth_server: str, user_config: Path) -> None:
    orch, log, _ = make_orchestrator(workspace, "http://127.0.0.1:9/v1", mcp_servers={"guarded": {"url": oauth_server}})
    orch.mcp.start()
    assert await eventually(lambda: sign_in_address(log.of(Notice)) is not None, 60)
    address = sign_in_address(log.of(Notice))
    assert address is not None and address.startswith(oauth_server.removesuffix("/mcp"))
    # the user opens it: the server consents at once and sends the browser back to coder-tui's listener
    async with httpx2.AsyncClient(follow_redirects=True, timeout=30) as browser:
        landed = await browser.get(address)
    assert "Signed in" in landed.text
    assert await eventually(lambda: orch.mcp.connections["guarded"].state is ServerState.READY, 60)
    assert "mcp__guarded__whoami" in orch.registry.names()

    [kept] = list((user_config / "coder" / "mcp-oauth").iterdir())
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert "access_token" in kept.read_text()
    assert not any("access_token" in p.read_text(errors="ignore") for p in workspace.rglob("*") if p.is_file())
    await orch.aclose()

    again, log, _ = make_orchestrator(workspace, "http://127.0.0.1:9/v1", mcp_servers={"guarded": {"url": oauth_server}})
    again.mcp.start()
    await again.mcp.settle(60)
    assert again.mcp.connections["guarded"].state is ServerState.READY
    assert sign_in_address(log.of(Notice)) is None  # no second sign-in
    await again.aclose()

    # The tokens are gone (revoked, say): signing in again uses the same registration and its redirect address.
    kept.write_text(json.dumps({k: v for k, v in json.loads(kept.read_text()).items() if k != "tokens"}))
    third, log, _ = make_orchestrator(workspace, "http://127.0.0.1:9/v1", mcp_servers={"guarded": {"url": oauth_server}})
    third.mcp.start()
    assert await eventually(lambda: sign_in_address(log.of(Notice)) is not None, 60)
    async with httpx2.AsyncClient(follow_redirects=True, timeout=30) as browser:
        assert "Signed in" in (await browser.get(sign_in_address(log.of(Notice)) or "")).text
    assert await eventually(lambda: third.mcp.connections["guarded"].state is ServerState.READY, 60)


@pytest.fixture
def refusing_server() -> Iterator[str]:
    class Refuse(BaseHTTPRequestHandler):
        def refuse(self) -> None:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Bearer realm="team"')
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST = do_DELETE = refuse

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/mcp"
    server.shutdown()


async def test_a_401_without_oauth_names_the_status_and_what_to_do(workspace: Path, refusing_server: str) -> None:
    orch, _, _ = make_orchestrator(workspace, "http://127.0.0.1:9/v1", mcp_servers={"team": {"url": refusing_server}})
    orch.mcp.start()
    await orch.mcp.settle(60)
    connection = orch.mcp.connections["team"]
    assert connection.state is ServerState.FAILED
    assert "HTTP 401 Unauthorized" in (connection.error or "")
    assert 'Bearer realm="team"' in (connection.error or "") and "headers" in (connection.error or "")


async def test_a_sign_in_slower_than_the_start_up_timeout_still_succeeds(
    workspace: Path, oauth_server: str, user_config: Path
) -> None:
    # The start-up timeout is the server's time: a person who takes longer to sign in is still waited for.
    servers = {"guarded": {"url": oauth_server, "startup_timeout": 2}}
    orch, log, _ = make_orchestrator(workspace, "http://127.0.0.1:9/v1", mcp_servers=servers)
    orch.mcp.start()
    assert await eventually(lambda: sign_in_address(log.of(Notice)) is not None, 60)
    await asyncio.sleep(3)  # reading the page, typing a password: more than the 2 s the server has to start
    assert orch.mcp.connections["guarded"].state is ServerState.STARTING
    async with httpx2.AsyncClient(follow_redirects=True, timeout=30) as browser:
        assert "Signed in" in (await browser.get(sign_in_address(log.of(Notice)) or "")).text
    assert await eventually(lambda: orch.mcp.connections["guarded"].state is ServerState.READY, 60)


async def test_a_client_registered_beforehand_signs_in_without_registering(
    workspace: Path, preregistered_server: tuple[str, int], user_config: Path
) -> None:
    url, callback = preregistered_server
    oauth = {"client_id": "coder-ci", "client_secret": "${CI_MCP_SECRET}", "callback_port": callback}
    orch, log, _ = make_orchestrator(workspace, "http://127.0.0.1:9/v1", env={"CI_MCP_SECRET": "s3cret"},
                                     mcp_servers={"guarded": {"url": url, "oauth": oauth}})
    orch.mcp.start()
    assert await eventually(lambda: sign_in_address(log.of(Notice)) is not None, 60)
    address = sign_in_address(log.of(Notice)) or ""
    assert "client_id=coder-ci" in address and f"127.0.0.1%3A{callback}" in address
    async with httpx2.AsyncClient(follow_redirects=True, timeout=30) as browser:
        assert "Signed in" in (await browser.get(address)).text
    assert await eventually(lambda: orch.mcp.connections["guarded"].state is ServerState.READY, 60)
    # The configured secret is never written down, not even beside the tokens.
    [kept] = list((user_config / "coder" / "mcp-oauth").iterdir())
    assert "access_token" in kept.read_text() and "s3cret" not in kept.read_text()


async def test_without_its_registered_client_a_server_that_registers_nobody_fails_saying_so(
    workspace: Path, preregistered_server: tuple[str, int], user_config: Path
) -> None:
    url, _ = preregistered_server
    orch, _, _ = make_orchestrator(workspace, "http://127.0.0.1:9/v1", mcp_servers={"guarded": {"url": url}})
    orch.mcp.start()
    await orch.mcp.settle(60)
    connection = orch.mcp.connections["guarded"]
    assert connection.state is ServerState.FAILED and "regist" in (connection.error or "").lower()
