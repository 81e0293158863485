"""The MCP servers an ACP client gives on ``session/new`` / ``session/load`` / ``session/resume`` (SPEC 24), as the
engine's server entries: stdio (command, args, env), streamable HTTP and SSE (url, headers). They join the
session's own servers (``mcp_servers`` and a trusted ``.mcp.json``); a client's server of the same name replaces
the configured one for that session, as the editor's settings are the user's choice for it."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from engine.config.schema import McpServerConfig
from engine.mcp.specs import ServerSpec

SOURCE = "the ACP client (session/new)"


class McpServerError(ValueError):
    """A server entry the engine cannot use; the message names it (``mcpServers[i]``) and why."""


def client_server_specs(servers: list[Any] | None) -> list[ServerSpec]:
    specs: list[ServerSpec] = []
    for index, server in enumerate(servers or []):
        name = getattr(server, "name", "") or ""
        if not name.strip():
            raise McpServerError(f"mcpServers[{index}]: a server needs a name")
        try:
            config = _config(server)
        except (ValidationError, ValueError) as exc:
            raise McpServerError(f"mcpServers[{index}] ({name}): {exc}") from exc
        if config is None:
            kind = getattr(server, "type", type(server).__name__)
            raise McpServerError(f"mcpServers[{index}] ({name}): transport {kind!r} is not supported "
                                 "(stdio, http and sse are)")
        specs.append(ServerSpec(name, config, SOURCE))
    return specs


def _config(server: Any) -> McpServerConfig | None:
    command = getattr(server, "command", None)
    if command is not None:
        env = {item.name: item.value for item in getattr(server, "env", None) or []}
        return McpServerConfig(type="stdio", command=command, args=list(server.args or []), env=env)
    url = getattr(server, "url", None)
    kind = getattr(server, "type", None) or "http"
    if url is None or kind not in ("http", "sse"):
        return None
    headers = {item.name: item.value for item in getattr(server, "headers", None) or []}
    return McpServerConfig(type=kind, url=url, headers=headers)
