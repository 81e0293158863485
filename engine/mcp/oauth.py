"""OAuth for HTTP MCP servers (SPEC 22), with the SDK's providers: a server that answers 401 with
``WWW-Authenticate`` gets the SDK's discovery, client identification and sign-in. The client is, in the spec's
order, one registered beforehand (``client_id`` in the settings), a Client ID Metadata Document
(``client_metadata_url``, where the server supports it) or a dynamic registration. A person signs in with the
authorization-code flow: the address is shown to the user (a notice: they open it themselves) and the browser comes
back to a listener on 127.0.0.1; a machine uses the client-credentials grant, with a secret or a private key.
Tokens and a dynamic registration are kept in the user's config folder (``coder/mcp-oauth/<server>.json``, mode
0600), never in the project, the database or a log; a configured secret is never written anywhere."""

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
from engine.config.schema import McpOAuthConfig
from engine.mcp.names import clean
from engine.mcp.specs import expand

# How long the listener waits for the browser to come back from the sign-in.
SIGN_IN_TIMEOUT_S = 300.0
CALLBACK_PATH = "/callback"


def token_path(server: str, url: str, env: Mapping[str, str]) -> Path:
    """Where the server's tokens are kept: one file per server name and URL."""
    import hashlib

    digest = hashlib.sha256(url.encode()).hexdigest()[:12]
    return user_config_path(env).parent / "mcp-oauth" / f"{clean(server)}-{digest}.json"


class FileTokenStorage:
    """The SDK's ``TokenStorage`` in one JSON file, written 0600 (its folder 0700). ``client``: a client registered
    beforehand, given as the registration and never written."""

    def __init__(self, path: Path, port: int | None = None, client: Any = None) -> None:
        self.path = path
        self._client = client
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

        if self._client is not None:
            return self._client
        data = self._read().get("client")
        return OAuthClientInformationFull.model_validate(data) if data else None

    async def set_client_info(self, client_info: Any) -> None:
        if self._client is not None:
            return
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


def oauth_provider(
    server: str,
    url: str,
    env: Mapping[str, str],
    tell: Callable[[str], None],
    settings: McpOAuthConfig | None = None,
    waiting: Callable[[bool], None] = lambda _: None,
) -> Any:
    """The ``httpx2.Auth`` that signs in to ``server`` when it asks; ``tell`` shows the user the sign-in address,
    ``waiting(True)`` / ``waiting(False)`` mark the time spent waiting for the person to sign in (it is not the
    server's start-up time)."""
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientMetadata

    settings = settings or McpOAuthConfig()
    secret = expand(settings.client_secret, env) if settings.client_secret is not None else None
    if settings.grant == "client_credentials":
        return _machine_provider(server, url, env, settings, secret)
    if settings.grant == "identity_assertion":
        return _enterprise_provider(server, url, env, settings, secret)
    storage = FileTokenStorage(token_path(server, url, env), settings.callback_port)
    if not isinstance(storage.port, int):
        storage.port = _free_port()
    port = storage.port
    redirect = f"http://127.0.0.1:{port}{CALLBACK_PATH}"
    method = settings.token_endpoint_auth_method or ("client_secret_basic" if secret else "none")
    metadata = OAuthClientMetadata(
        client_name="coder-tui",
        redirect_uris=[redirect],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method=method,
        scope=settings.scope,
    )
    if settings.client_id is not None:
        storage = FileTokenStorage(storage.path, port, client=_registered(settings.client_id, secret, metadata))

    async def show(address: str) -> None:
        tell(f"MCP server {server} needs you to sign in: open {address} (waiting up to "
             f"{SIGN_IN_TIMEOUT_S / 60:.0f} minutes for the browser to come back to {redirect})")

    async def wait_for_code() -> Any:
        waiting(True)
        try:
            return await _callback(port)
        finally:
            waiting(False)

    return OAuthClientProvider(url, metadata, storage, redirect_handler=show, callback_handler=wait_for_code,
                               client_metadata_url=settings.client_metadata_url)


def _registered(client_id: str, secret: str | None, metadata: Any) -> Any:
    from mcp.shared.auth import OAuthClientInformationFull

    return OAuthClientInformationFull(client_id=client_id, client_secret=secret,
                                      **metadata.model_dump(exclude={"client_id", "client_secret"}))


def _machine_provider(server: str, url: str, env: Mapping[str, str], settings: McpOAuthConfig,
                      secret: str | None) -> Any:
    """The client-credentials grant: the client's secret (HTTP Basic or in the body) or a JWT signed with its
    private key gets the token; nobody is asked."""
    from mcp.client.auth.extensions.client_credentials import (
        ClientCredentialsOAuthProvider,
        PrivateKeyJWTOAuthProvider,
        SignedJWTParameters,
    )

    assert settings.client_id is not None  # checked by the settings
    storage = FileTokenStorage(token_path(server, url, env))
    if settings.private_key is not None:
        key = SignedJWTParameters(issuer=settings.client_id, subject=settings.client_id,
                                  signing_key=expand(settings.private_key, env),
                                  signing_algorithm=settings.signing_algorithm)
        return PrivateKeyJWTOAuthProvider(url, storage, settings.client_id, key.create_assertion_provider(),
                                          scope=settings.scope)
    method = settings.token_endpoint_auth_method
    return ClientCredentialsOAuthProvider(
        url, storage, settings.client_id, secret or "",
        token_endpoint_auth_method=method if method == "client_secret_post" else "client_secret_basic",
        scope=settings.scope,
    )


def _enterprise_provider(server: str, url: str, env: Mapping[str, str], settings: McpOAuthConfig,
                         secret: str | None) -> Any:
    """Enterprise-managed sign-in (SEP-990): the person's ID token is exchanged at the company's identity provider
    for an identity assertion (RFC 8693 token exchange), which the server's authorization server, named in the
    settings, takes as a JWT-bearer grant (RFC 7523) for the access token."""
    from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider

    idp, issuer = settings.idp, settings.issuer
    assert idp is not None and issuer is not None and settings.client_id is not None  # checked by the settings

    async def assertion(audience: str, resource: str) -> str:
        import httpx2

        form = {
            "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
            "subject_token": expand(idp.id_token, env),
            "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
            "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
            "audience": audience,
            "resource": resource,
            "client_id": idp.client_id,
        }
        if idp.client_secret is not None:
            form["client_secret"] = expand(idp.client_secret, env)
        async with httpx2.AsyncClient(timeout=30) as client:
            answer = await client.post(expand(idp.token_endpoint, env), data=form)
        if answer.status_code != 200:
            raise RuntimeError(f"the identity provider refused the token exchange: HTTP {answer.status_code} "
                               f"{answer.text[:200]}")
        return str(answer.json()["access_token"])

    method = settings.token_endpoint_auth_method
    return IdentityAssertionOAuthProvider(
        url, FileTokenStorage(token_path(server, url, env)), settings.client_id, secret or "", issuer, assertion,
        scope=settings.scope,
        token_endpoint_auth_method="client_secret_basic" if method == "client_secret_basic" else "client_secret_post",
    )


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
