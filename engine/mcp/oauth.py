"""OAuth for HTTP MCP servers (SPEC 22), with the SDK's ``OAuthClientProvider``: a server that answers 401 with
``WWW-Authenticate`` gets the SDK's discovery, registration and authorization-code flow. The sign-in address is
shown to the user (a notice: they open it themselves), the browser comes back to a listener on 127.0.0.1, and the
tokens and client registration are kept in the user's config folder (``coder/mcp-oauth/<server>.json``, mode
0600), never in the project, the database or a log."""

from __future__ import annotations

import asyncio
import json
import os
import socket
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from engine.config.paths import user_config_path
from engine.mcp.names import clean

# How long the listener waits for the browser to come back from the sign-in.
SIGN_IN_TIMEOUT_S = 300.0
CALLBACK_PATH = "/callback"


def token_path(server: str, url: str, env: Mapping[str, str]) -> Path:
    """Where the server's tokens are kept: one file per server name and URL."""
    import hashlib

    digest = hashlib.sha256(url.encode()).hexdigest()[:12]
    return user_config_path(env).parent / "mcp-oauth" / f"{clean(server)}-{digest}.json"


class FileTokenStorage:
    """The SDK's ``TokenStorage`` in one JSON file, written 0600 (its folder 0700)."""

    def __init__(self, path: Path, port: int | None = None) -> None:
        self.path = path
        # The redirect port the client was registered with is kept beside its registration and used again.
        self.port = port if port is not None else self._read().get("port")

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        data = self._read().get("tokens")
        return OAuthToken.model_validate(data) if data else None

    async def set_tokens(self, tokens: Any) -> None:
        self._write("tokens", tokens.model_dump(mode="json", exclude_none=True))

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        data = self._read().get("client")
        return OAuthClientInformationFull.model_validate(data) if data else None

    async def set_client_info(self, client_info: Any) -> None:
        self._write("client", client_info.model_dump(mode="json", exclude_none=True))
        self._write("port", self.port)

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, key: str, value: Any) -> None:
        data = {**self._read(), key: value}
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary = self.path.with_suffix(".tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        os.chmod(temporary, 0o600)
        os.replace(temporary, self.path)


def oauth_provider(server: str, url: str, env: Mapping[str, str], tell: Callable[[str], None]) -> Any:
    """The ``httpx2.Auth`` that signs in to ``server`` when it asks; ``tell`` shows the user the sign-in address."""
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    storage = FileTokenStorage(token_path(server, url, env))
    if not isinstance(storage.port, int):
        storage.port = _free_port()
    port = storage.port
    redirect = f"http://127.0.0.1:{port}{CALLBACK_PATH}"
    metadata = OAuthClientMetadata(
        client_name="coder-tui",
        redirect_uris=[redirect],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
    )

    async def show(address: str) -> None:
        tell(f"MCP server {server} needs you to sign in: open {address} (waiting up to "
             f"{SIGN_IN_TIMEOUT_S / 60:.0f} minutes for the browser to come back to {redirect})")

    async def wait_for_code() -> Any:
        return await _callback(port)

    return OAuthClientProvider(url, metadata, storage, redirect_handler=show, callback_handler=wait_for_code)


async def _callback(port: int) -> Any:
    """The authorization code the browser brings back to ``127.0.0.1:port/callback``."""
    from mcp.shared.auth import AuthorizationCodeResult

    found: asyncio.Future[dict[str, list[str]]] = asyncio.get_running_loop().create_future()

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request_line = (await reader.readline()).decode("latin-1").split(" ")
            query = parse_qs(urlparse(request_line[1]).query) if len(request_line) > 1 else {}
            ok = "code" in query and not found.done()
            body = b"Signed in: you can close this tab." if ok else b"No authorization code in this request."
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s"
                         % (len(body), body))
            await writer.drain()
            if ok:
                found.set_result(query)
        finally:
            writer.close()

    listener = await asyncio.start_server(answer, "127.0.0.1", port)
    try:
        async with listener:
            query = await asyncio.wait_for(found, SIGN_IN_TIMEOUT_S)
    except asyncio.TimeoutError:
        raise TimeoutError(f"nobody signed in within {SIGN_IN_TIMEOUT_S / 60:.0f} minutes") from None
    return AuthorizationCodeResult(code=query["code"][0], state=(query.get("state") or [None])[0])


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
