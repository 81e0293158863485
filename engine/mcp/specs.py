"""Which MCP servers to start: ``mcp_servers`` in the config, then a trusted project's ``.mcp.json`` (Claude Code's
file, ``mcpServers`` key); a name in both keeps the config's entry. ``${VAR}`` references in ``env`` and ``headers``
are expanded when a server starts, from the environment, and the values live only in memory."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from engine.config.schema import Config, McpServerConfig
from engine.record import record

Transport = Literal["stdio", "http", "sse"]
MCP_JSON = ".mcp.json"
# ${VAR} and ${VAR:-default}, as Claude Code expands them.
_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class MissingVariable(ValueError):
    """A ``${VAR}`` with no value in the environment and no default."""


@record
class ServerSpec:
    name: str
    config: McpServerConfig
    # Where it was defined: "config" or the path of the .mcp.json file.
    source: str

    @property
    def transport(self) -> Transport:
        if self.config.type is not None:
            return self.config.type
        return "stdio" if self.config.command is not None else "http"

    @property
    def target(self) -> str:
        """What /mcp shows of where the server is: the command line or the URL."""
        if self.config.command is not None:
            return " ".join([self.config.command, *self.config.args])
        return self.config.url or ""


def server_specs(
    config: Config, workspace: Path, *, project_trusted: bool
) -> tuple[list[ServerSpec], list[str]]:
    """The enabled servers to start, and the problems found in ``.mcp.json`` (each naming the file and the key)."""
    specs = {name: ServerSpec(name, server, "config") for name, server in config.mcp_servers.items()}
    problems: list[str] = []
    path = workspace / MCP_JSON
    if project_trusted and path.is_file():
        for spec in _read_mcp_json(path, problems):
            specs.setdefault(spec.name, spec)
    return [spec for spec in specs.values() if spec.config.enabled], problems


def _read_mcp_json(path: Path, problems: list[str]) -> list[ServerSpec]:
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{path}: cannot read: {exc}")
        return []
    except json.JSONDecodeError as exc:
        problems.append(f"{path}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}")
        return []
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        problems.append(f"{path}: mcpServers: expected an object of servers")
        return []
    specs = []
    for name, entry in servers.items():
        try:
            specs.append(ServerSpec(str(name), McpServerConfig.model_validate(entry), str(path)))
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"])
            problems.append(f"{path}: mcpServers.{name}{'.' + where if where else ''}: {error['msg']} (skipped)")
    return specs


def expand(value: str, env: Mapping[str, str]) -> str:
    """``${VAR}`` and ``${VAR:-default}`` from ``env``; ``MissingVariable`` names a variable that is not set."""

    def substitute(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in env:
            return env[name]
        if default is not None:
            return default
        raise MissingVariable(f"the environment variable {name} is not set")

    return _REFERENCE.sub(substitute, value)


def expand_all(values: Mapping[str, str], env: Mapping[str, str]) -> dict[str, str]:
    return {key: expand(value, env) for key, value in values.items()}
