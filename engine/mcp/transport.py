"""Opening the SDK transport for one server: stdio (the command as a child process, its stderr into a log file),
streamable HTTP, or SSE. Imports the SDK, so only the connection task (after the SDK is loaded) calls it."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

from engine.mcp.specs import ServerSpec, expand, expand_all


def open_transport(
    spec: ServerSpec, env: Mapping[str, str], workspace: Path, stderr: TextIO
) -> AbstractAsyncContextManager[Any]:
    """The transport as the SDK's ``Client`` takes it. ``MissingVariable`` when a ``${VAR}`` has no value."""
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

        return sse_client(url, headers=headers or None)
    return _streamable_http(url, headers)


@asynccontextmanager
async def _streamable_http(url: str, headers: dict[str, str]) -> Any:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    # The SDK's own defaults: a response stream may stay open for minutes.
    timeout = httpx2.Timeout(30.0, read=300.0)
    async with httpx2.AsyncClient(headers=headers, timeout=timeout) as http_client:
        async with streamable_http_client(url, http_client=http_client) as streams:
            yield streams
