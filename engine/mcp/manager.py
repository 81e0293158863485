"""All MCP servers of a session: started together in the background, each on its own (one that fails, hangs or dies
leaves the others working); their tools kept in the session's registry as they come, change and go; restarted and
stopped on request. Owned by the orchestrator, so it lives wherever the engine runs."""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from engine.events import Event, Notice
from engine.mcp.connection import ServerConnection, ServerState
from engine.mcp.names import qualified_name, server_pattern
from engine.mcp.resources import attach_resources
from engine.mcp.server_requests import ServerRequestHandler
from engine.mcp.specs import ServerSpec
from engine.mcp.tool import McpTool
from engine.record import record
from engine.tools.registry import ToolRegistry

# The SDK's own log lines go to a file, never to the screen.
SDK_LOG = "mcp-sdk.log"


@record
class PromptCommand:
    """A server prompt offered as ``/mcp__<server>__<prompt>``."""

    command: str
    connection: ServerConnection
    prompt: Any  # mcp_types.Prompt

    @property
    def arguments(self) -> list[Any]:
        return list(self.prompt.arguments or [])

    @property
    def usage(self) -> str:
        names = [a.name if a.required else f"[{a.name}]" for a in self.arguments]
        return " ".join([self.command, *(f"<{n}>" if not n.startswith("[") else n for n in names)])

    @property
    def summary(self) -> str:
        text = (self.prompt.description or self.prompt.title or "").strip().split("\n")[0]
        return f"{text} (MCP prompt of {self.connection.name})".strip()


SpecSource = Callable[[], tuple[list[ServerSpec], list[str]]]


class McpManager:
    def __init__(
        self,
        load_specs: SpecSource,
        *,
        registry: ToolRegistry,
        workspace: Path,
        env: Mapping[str, str],
        emit: Callable[[Event], None],
        on_tools_changed: Callable[[], None],
        on_prompts_changed: Callable[[], None],
        requests: ServerRequestHandler | None = None,
    ) -> None:
        """``load_specs`` is asked for the servers (and the problems met reading them) when they start: folder
        trust may be settled only after the engine is made."""
        self._load_specs = load_specs
        self._registry = registry
        self._workspace = workspace
        self._env = env
        self._emit = emit
        self._on_tools_changed = on_tools_changed
        self._on_prompts_changed = on_prompts_changed
        self._requests = requests
        self.connections: dict[str, ServerConnection] = {}
        self.problems: list[str] = []
        # Tool name -> the name pattern "always" in the approval dialog allows for it; the policy reads it.
        self.always_scopes: dict[str, str] = {}
        self._tool_names: dict[str, list[str]] = {}
        self._prompt_names: dict[str, list[str]] = {}
        self._states: dict[str, ServerState] = {}
        self._starter: asyncio.Task[None] | None = None
        # Servers given by the front end for this session (an ACP client's ``mcpServers``); they replace configured
        # servers of the same name.
        self.extra_specs: list[ServerSpec] = []

    @property
    def started(self) -> bool:
        return self._starter is not None

    def start(self) -> None:
        """Starts every server in the background, in parallel; returns at once. The SDK is imported in a thread
        first, so neither the import nor any server delays the screen or the prompt."""
        if self._starter is not None:
            return
        specs, self.problems = self._load_specs()
        if self.extra_specs:
            given = {spec.name for spec in self.extra_specs}
            specs = [spec for spec in specs if spec.name not in given] + self.extra_specs
        self.connections = {
            spec.name: ServerConnection(
                spec, env=self._env, workspace=self._workspace, on_change=self._changed, requests=self._requests,
                tell=lambda text: self._emit(Notice(text, level="warning")),
            )
            for spec in specs
        }
        self._starter = asyncio.create_task(self._start_all(), name="mcp-start")

    @property
    def settle_bound_s(self) -> float:
        """Each server has its own start-up timeout: waiting for the slowest, and a little more, is enough."""
        return max((c.spec.config.startup_timeout for c in self.connections.values()), default=0.0) + 1.0

    async def settle(self, timeout: float | None = None) -> None:
        """Waits until no server is still starting, at most ``timeout`` seconds (default: ``settle_bound_s``) once
        the SDK is loaded (headless runs, before the first model call: a script's servers should be there when the
        model looks at its tools)."""
        if self._starter is None:
            return
        timeout = self.settle_bound_s if timeout is None else timeout
        loop = asyncio.get_running_loop()
        await asyncio.wait([self._starter], timeout=timeout)  # the SDK import, before any server starts
        deadline = loop.time() + timeout
        while any(c.starting for c in self.connections.values()) and loop.time() < deadline:
            await asyncio.sleep(0.05)

    async def lists_current(self) -> None:
        """Waits (bounded) until every tool and prompt list a server said changed has been fetched again."""
        await asyncio.gather(*(c.lists_current() for c in self.connections.values()))

    async def restart(self, name: str) -> ServerConnection:
        """``KeyError`` for a server that is not configured."""
        self.start()
        connection = self.connections[name]
        if self._starter is not None:
            await asyncio.wait([self._starter])  # the SDK is loaded before any connection starts
        await connection.restart()
        return connection

    async def aclose(self) -> None:
        """Stops every server (in parallel), each within its stop timeout."""
        if self._starter is not None and not self._starter.done():
            self._starter.cancel()
            await asyncio.gather(self._starter, return_exceptions=True)
        await asyncio.gather(*(c.stop() for c in self.connections.values()), return_exceptions=True)

    async def reload(self) -> None:
        """After a configuration change (``/trust``): stops the servers and, if they had started, starts the ones the
        configuration names now."""
        was_started = self.started
        await self.aclose()
        self.connections, self._starter = {}, None
        if was_started:
            self.start()

    async def attach_resources(self, text: str) -> str:
        """``text`` with the ``@server:uri`` resources it mentions attached; what could not be is said in a notice."""
        if "@" not in text or not self.connections:
            return text
        text, problems = await attach_resources(text, self.connections)
        for problem in problems:
            self._emit(Notice(problem, level="warning"))
        return text

    def tools_of(self, name: str) -> list[str]:
        return list(self._tool_names.get(name, []))

    def prompt_commands(self) -> list[PromptCommand]:
        commands = []
        for name, connection in self.connections.items():
            for command, prompt in zip(self._prompt_names.get(name, []), connection.prompts, strict=False):
                commands.append(PromptCommand(command, connection, prompt))
        return commands

    # -- inside -----------------------------------------------------------------------------------------------------
    async def _start_all(self) -> None:
        # Said from the task, not from start(): the front end may subscribe right after start() returns.
        for problem in self.problems:
            self._emit(Notice(f"MCP: {problem}", level="warning"))
        if not self.connections:
            return
        try:
            await asyncio.to_thread(importlib.import_module, "mcp.client.client")
        except ImportError as exc:
            for connection in self.connections.values():
                connection.state, connection.error = ServerState.FAILED, f"the mcp SDK cannot be loaded: {exc}"
                self._changed(connection)
            return
        self._route_sdk_logs()
        for connection in self.connections.values():
            connection.start()

    def _route_sdk_logs(self) -> None:
        sdk_logger = logging.getLogger("mcp")
        if sdk_logger.handlers:
            return
        try:
            path = self._workspace / ".coder" / "logs" / SDK_LOG
            path.parent.mkdir(parents=True, exist_ok=True)
            handler: logging.Handler = logging.FileHandler(path, encoding="utf-8", delay=True)
        except OSError:
            handler = logging.NullHandler()
        sdk_logger.addHandler(handler)
        sdk_logger.propagate = False

    def _changed(self, connection: ServerConnection) -> None:
        name = connection.name
        previous = self._states.get(name)
        self._states[name] = connection.state
        self._sync_tools(connection)
        self._sync_prompts(connection)
        if connection.state is ServerState.FAILED and previous is not ServerState.FAILED:
            self._emit(Notice(f"MCP server {name} failed: {connection.error} (/mcp for details)", level="warning"))

    def _sync_tools(self, connection: ServerConnection) -> None:
        old = self._tool_names.pop(connection.name, [])
        for tool_name in old:
            self._registry.unregister(tool_name)
            self.always_scopes.pop(tool_name, None)
        new: list[str] = []
        taken = set(self._registry.names())
        for server_tool in connection.tools:
            tool_name = qualified_name(connection.name, server_tool.name, taken)
            taken.add(tool_name)
            self._registry.register(McpTool(tool_name, connection, server_tool, self._emit))
            if connection.spec.config.always == "server":
                self.always_scopes[tool_name] = server_pattern(connection.name)
            new.append(tool_name)
        self._tool_names[connection.name] = new
        if new != old:
            self._on_tools_changed()

    def _sync_prompts(self, connection: ServerConnection) -> None:
        old = self._prompt_names.get(connection.name, [])
        taken = {c[1:] for name, cs in self._prompt_names.items() if name != connection.name for c in cs}
        new = []
        for prompt in connection.prompts:
            bare = qualified_name(connection.name, prompt.name, taken)
            taken.add(bare)
            new.append("/" + bare)
        self._prompt_names[connection.name] = new
        if new != old:
            self._on_prompts_changed()
