"""Opening the SDK transport for one server: stdio (the command as a child process, its stderr into a log file),
streamable HTTP, or SSE. Imports the SDK, so only the connection task (after the SDK is loaded) calls it."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from engine.mcp.specs import ServerSpec, expand, expand_all


@dataclass
class HttpTrouble:
    """The last HTTP error answer a server gave (its status, reason and ``WWW-Authenticate``), so that a failure
    says more than the SDK's "Server returned an error response"."""

    status: int | None = None
    reason: str = ""
    challenge: str = ""

    async def seen(self, response: Any) -> None:
        if response.status_code >= 400:
            self.status, self.reason = response.status_code, response.reason_phrase
            self.challenge = response.headers.get("www-authenticate", "")

    def describe(self) -> str:
        if self.status is None:
            return ""
        text = f"HTTP {self.status} {self.reason}".strip()
        if self.status == 401:
            how = f" ({self.challenge})" if self.challenge else ""
            text += (f": the server wants a sign-in{how}; coder-tui signs in with OAuth when the server offers it, "
                     "else set headers (e.g. Authorization) for it in mcp_servers")
        elif self.status == 403:
            text += ": the server refused these credentials"
        return text


def open_transport(
    spec: ServerSpec,
    env: Mapping[str, str],
    workspace: Path,
    stderr: TextIO,
    *,
    auth: Any = None,
    trouble: HttpTrouble | None = None,
) -> AbstractAsyncContextManager[Any]:
    """The transport as the SDK's ``Client`` takes it. ``MissingVariable`` when a ``${VAR}`` has no value.
    ``auth`` (an ``httpx2.Auth``: OAuth) signs HTTP requests; ``trouble`` hears the HTTP errors."""
    config = spec.config
    if spec.transport == "stdio":
        from mcp.client.stdio import StdioServerParameters, stdio_client

        assert config.command is not None
        cwd = workspace / config.cwd if config.cwd else workspace
        params = StdioServerParameters(
            command=config.command, args=list(config.args), env=expand_all(config.env, env), cwd=cwd
        )
        return stdio_client(params, errlog=stderr)
    assert config.url is not None
    url, headers = expand(config.url, env), expand_all(config.headers, env)
    if spec.transport == "sse":
        from mcp.client.sse import sse_client

        return sse_client(url, headers=headers or None, auth=auth)
    return _streamable_http(url, headers, auth, trouble)


@asynccontextmanager
async def _streamable_http(url: str, headers: dict[str, str], auth: Any, trouble: HttpTrouble | None) -> Any:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    # The SDK's own defaults: a response stream may stay open for minutes.
    timeout = httpx2.Timeout(30.0, read=300.0)
    hooks = {"response": [trouble.seen]} if trouble is not None else {}
    async with httpx2.AsyncClient(headers=headers, timeout=timeout, auth=auth, event_hooks=hooks) as http_client:
        async with streamable_http_client(url, http_client=http_client) as streams:
            yield streams
