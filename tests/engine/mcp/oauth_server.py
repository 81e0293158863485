"""An MCP server behind OAuth, on the SDK's ``MCPServer`` with its own authorization server (the SDK's auth
routes): dynamic client registration, the authorization-code flow with PKCE, access tokens that expire never.
The "user" consents at once: ``/authorize`` redirects straight back to the client's redirect URI with a code.

``python -m tests.engine.mcp.oauth_server PORT [CLIENT_ID:SECRET:CALLBACK_PORT]``: tool ``whoami``, at
``http://127.0.0.1:PORT/mcp``. With a client given, that client is registered beforehand and dynamic registration
is off (its endpoint answers 404), as on a server whose owner issues the clients.
"""

from __future__ import annotations

import secrets
import sys
import time

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


class ConsentingProvider:
    def __init__(self, clients: dict[str, OAuthClientInformationFull] | None = None) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = clients or {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.tokens: dict[str, AccessToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(16)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or [], expires_at=time.time() + 300, client_id=client.client_id or "",
            code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        return self.codes.get(code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, code: AuthorizationCode
    ) -> OAuthToken:
        del self.codes[code.code]
        token = secrets.token_urlsafe(24)
        self.tokens[token] = AccessToken(token=token, client_id=code.client_id, scopes=code.scopes,
                                         resource=code.resource)
        return OAuthToken(access_token=token, token_type="Bearer", scope=" ".join(code.scopes) or None)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        return None

    async def exchange_refresh_token(self, *args: object) -> OAuthToken:
        raise NotImplementedError

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.tokens.get(token)

    async def revoke_token(self, token: object) -> None:
        pass


def build(port: int, client: str | None = None) -> MCPServer:
    base = f"http://127.0.0.1:{port}"
    clients = {}
    if client is not None:
        client_id, secret, callback = client.split(":")
        clients[client_id] = OAuthClientInformationFull(
            client_id=client_id, client_secret=secret, token_endpoint_auth_method="client_secret_basic",
            redirect_uris=[f"http://127.0.0.1:{callback}/callback"],  # type: ignore[list-item]
            grant_types=["authorization_code", "refresh_token"],
        )
    server = MCPServer(
        "guarded",
        auth_server_provider=ConsentingProvider(clients),
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            client_registration_options=ClientRegistrationOptions(enabled=client is None),
        ),
    )

    @server.tool()
    def whoami() -> str:
        """Says the caller got in."""
        return "signed in"

    return server


if __name__ == "__main__":
    port = int(sys.argv[1])
    build(port, sys.argv[2] if len(sys.argv) > 2 else None).run("streamable-http", host="127.0.0.1", port=port)
