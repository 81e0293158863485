"""One MCP server: its connection task, its state, its tools and prompts, and calls to it.

The SDK's ``Client`` is entered and left in one task (``_run``), as anyio requires; calls come from the turn's task
and travel over the client's streams. A call cancelled by Esc is cancelled at the server too (the SDK sends
``notifications/cancelled``). The server's stderr goes to ``.coder/logs/mcp-<name>.log``, never the screen.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from enum import Enum
from pathlib import Path
from typing import Any, Protocol, TextIO

from engine.errors import ToolError
from engine.mcp.generations import refused_back_channel
from engine.mcp.listing import all_pages, needs_task
from engine.mcp.names import clean
from engine.mcp.server_log import ServerGone, describe, last_line, log_line
from engine.mcp.server_requests import ServerRequestHandler, client_callbacks
from engine.mcp.specs import ServerSpec
from engine.mcp.transport import HttpTrouble, open_transport

# How often a quiet server is pinged, so that one which died is noticed without waiting for a call.
PING_INTERVAL_S = 5.0
# How long a request waits for the tool and prompt lists a server said changed to be fetched again.
RELIST_WAIT_S = 5.0
# How long a stop waits for the SDK's shutdown (close stdin, then terminate, then kill: bounded at about 6 s).
STOP_TIMEOUT_S = 10.0
CLIENT_NAME = "coder-tui"


class ProgressCallback(Protocol):
    async def __call__(self, progress: float, total: float | None, message: str | None) -> None: ...


class ServerState(str, Enum):
    STARTING = "starting"
    READY = "ready"
    FAILED = "failed"
    STOPPED = "stopped"


class ServerConnection:
    def __init__(
        self,
        spec: ServerSpec,
        *,
        env: Mapping[str, str],
        workspace: Path,
        on_change: Callable[[ServerConnection], None],
        requests: ServerRequestHandler | None = None,
        tell: Callable[[str], None] | None = None,
    ) -> None:
        """``requests`` answers the server's sampling and elicitation requests (none: they are not offered);
        ``tell`` shows the user something they must do (open a sign-in address)."""
        self.spec = spec
        self.state = ServerState.STOPPED
        self.error: str | None = None
        self.tools: list[Any] = []  # mcp_types.Tool
        self.prompts: list[Any] = []  # mcp_types.Prompt
        # Tools the server lists that this client cannot call (they require task augmentation): not offered.
        self.skipped_tools: list[str] = []
        self._requests = requests
        self._tell = tell or (lambda text: None)
        self._log: TextIO | None = None
        self._trouble = HttpTrouble()
        self._env = env
        self._workspace = workspace
        self._on_change = on_change
        self._client: Any = None
        # Set once this server's tools were seen asking on a back channel a 2026-07-28 connection does not have:
        # from then on it is spoken to with the initialize handshake.
        self._legacy = spec.config.protocol == "legacy"
        self._settled = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._gone = asyncio.Event()
        self._relist = asyncio.Event()
        # Set while the lists are as the server last said they are; cleared by a list_changed until refetched.
        self._current = asyncio.Event()
        self._current.set()

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def log_path(self) -> Path:
        return self._workspace / ".coder" / "logs" / f"mcp-{clean(self.spec.name)}.log"

    @property
    def starting(self) -> bool:
        return self.state is ServerState.STARTING

    def start(self) -> None:
        """Starts the connection task; the state says how it goes. Needs the SDK imported (the manager does it)."""
        if self._task is not None and not self._task.done():
            return
        self.state, self.error = ServerState.STARTING, None
        self._stop, self._gone, self._relist = asyncio.Event(), asyncio.Event(), asyncio.Event()
        self._current = asyncio.Event()
        self._current.set()
        self._settled = asyncio.Event()
        self._task = asyncio.create_task(self._run(), name=f"mcp-{self.spec.name}")
        self._on_change(self)

    async def stop(self) -> None:
        task = self._task
        if task is None:
            return
        self._stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(task), STOP_TIMEOUT_S)
        except (asyncio.TimeoutError, Exception):
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        self._task = None

    async def restart(self) -> None:
        await self.stop()
        self.start()

    async def call_tool(
        self, tool: str, arguments: dict[str, Any], progress: ProgressCallback | None = None
    ) -> Any:
        """The server's ``CallToolResult``; ``ToolError`` when the server is not ready or the call fails.
        ``progress`` hears the server's progress notifications for this call. Returns once a tool list the call
        changed (``list_changed`` during it) has been fetched again, so the next request offers the new tools."""
        timeout = self.spec.config.tool_timeout
        result = await self._request(
            lambda client: client.call_tool(tool, arguments, read_timeout_seconds=timeout, progress_callback=progress)
        )
        await self.lists_current()
        return result

    async def lists_current(self, timeout: float = RELIST_WAIT_S) -> None:
        """Waits (at most ``timeout``) until a change the server announced has been fetched."""
        if self.state is ServerState.READY and not self._current.is_set():
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await self._current.wait()

    async def read_resource(self, uri: str) -> Any:
        return await self._request(lambda client: client.read_resource(uri))

    async def get_prompt(self, prompt: str, arguments: dict[str, str]) -> Any:
        return await self._request(lambda client: client.get_prompt(prompt, arguments))

    # -- inside ---------------------------------------------------------------------------------------------------
    async def _request(self, send: Callable[[Any], Awaitable[Any]]) -> Any:
        """One request to the ready server; any failure but a cancellation becomes a ``ToolError``.

        A server whose tool asks the client (sampling, a form, the roots) with a request of its own in the middle
        of the call cannot do that on a 2026-07-28 connection, which has no server-initiated requests (its servers
        ask by returning an input-required result instead). Such a refusal is not the tool's failure: the server
        is connected again with the initialize handshake, where that request is allowed, and the call made again,
        once."""
        try:
            return await self._request_once(send)
        except ToolError as exc:
            method = refused_back_channel(exc.__cause__)
            if method is None or self._legacy or self.spec.config.protocol != "auto":
                raise
        self._legacy = True
        note = (f"MCP server {self.spec.name} asks for {method} the way servers before the 2026-07-28 protocol do: "
                "connected again with the initialize handshake")
        if self._log is not None:
            log_line(self._log, note)
        self._tell(note)
        await self.restart()
        await self.ready()
        return await self._request_once(send)

    async def ready(self) -> None:
        """Returns once the connection being started is ready, or has failed."""
        await self._settled.wait()

    async def _request_once(self, send: Callable[[Any], Awaitable[Any]]) -> Any:
        client = self._client
        if self.state is not ServerState.READY or client is None:
            detail = f": {self.error}" if self.error else ""
            raise ToolError(f"MCP server {self.spec.name} is {self.state.value}{detail}")
        try:
            return await send(client)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise ToolError(self._call_failed(exc)) from exc

    def _call_failed(self, exc: Exception) -> str:
        text = describe(exc)
        if "connection closed" in text.lower():
            self._gone.set()
        return f"MCP server {self.spec.name}: {text}"

    async def _run(self) -> None:
        try:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.log_path, "a", encoding="utf-8") as stderr:
                self._log = stderr
                log_line(stderr, f"starting {self.spec.transport} server: {self.spec.target}")
                start = stderr.tell()
                try:
                    await self._serve(stderr)
                    self.state = ServerState.STOPPED
                except asyncio.CancelledError:
                    self.state = ServerState.STOPPED
                    raise
                except BaseException as exc:  # ExceptionGroups from anyio included; never the app's problem
                    if self._stop.is_set():
                        self.state = ServerState.STOPPED
                    else:
                        self.state, self.error = ServerState.FAILED, describe(exc)
                        if http := self._trouble.describe():
                            self.error = f"{self.error} ({http})"
                        said = last_line(self.log_path, start)
                        if said:
                            self.error += f"; its last words: {said}"
                        log_line(stderr, f"failed: {self.error}")
        except OSError as exc:
            self.state, self.error = ServerState.FAILED, f"cannot write its log {self.log_path}: {exc}"
        finally:
            self._settled.set()
            self._client, self._log = None, None
            self.tools, self.prompts, self.skipped_tools = [], [], []
            self._current.set()
            self._on_change(self)

    async def _serve(self, stderr: TextIO) -> None:
        from mcp import Client
        from mcp_types import Implementation

        config = self.spec.config
        self._trouble = HttpTrouble()
        auth = None
        # Reset while a person signs in: the start-up timeout is the server's time, not theirs.
        deadline: asyncio.Timeout | None = None

        def signing_in(waiting: bool) -> None:
            if deadline is not None and not deadline.expired():
                deadline.reschedule(None if waiting else asyncio.get_running_loop().time() + config.startup_timeout)

        if self.spec.transport != "stdio" and config.oauth:
            from engine.mcp.oauth import oauth_provider
            from engine.mcp.specs import expand

            settings = config.oauth if not isinstance(config.oauth, bool) else None
            auth = oauth_provider(self.spec.name, expand(config.url or "", self._env), self._env, self._tell,
                                  settings, signing_in)
        client = Client(
            open_transport(self.spec, self._env, self._workspace, stderr, auth=auth, trouble=self._trouble),
            message_handler=self._on_message,
            cache=None,
            client_info=Implementation(name=CLIENT_NAME, version="0.1.0"),
            log_level="info",
            mode="legacy" if self._legacy else config.protocol,
            **client_callbacks(self.spec.name, self._requests, self._workspace, self.write_log),
        )
        async with contextlib.AsyncExitStack() as stack:
            try:
                async with asyncio.timeout(config.startup_timeout) as deadline:
                    await stack.enter_async_context(client)
                    await self._fetch_lists(client)
            except TimeoutError:
                raise TimeoutError(f"did not start within {config.startup_timeout:g} s") from None
            self._client = client
            self.state = ServerState.READY
            self._settled.set()
            log_line(stderr, f"ready: {len(self.tools)} tools, {len(self.prompts)} prompts, "
                              f"protocol {client.protocol_version}")
            self._on_change(self)
            await self._watch(client)

    async def _watch(self, client: Any) -> None:
        """Until a stop is asked (returns) or the server goes away (raises ``ServerGone``); meanwhile refreshes the
        lists when the server says they changed."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        stop = asyncio.create_task(self._stop.wait())
        watchers = [
            stop,
            asyncio.create_task(self._keep_alive(client)),
            asyncio.create_task(self._refresh_on_change(client)),
        ]
        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            watchers.append(asyncio.create_task(self._listen(client)))
        try:
            done, _ = await asyncio.wait(watchers, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for watcher in watchers:
                watcher.cancel()
            await asyncio.gather(*watchers, return_exceptions=True)
        if stop in done:
            return
        for watcher in done:
            if not watcher.cancelled() and watcher.exception() is not None:
                raise ServerGone(f"the server stopped: {describe(watcher.exception())}")  # type: ignore[arg-type]
        raise ServerGone("the server stopped")

    async def _keep_alive(self, client: Any) -> None:
        while True:
            try:
                await asyncio.wait_for(self._gone.wait(), PING_INTERVAL_S)
                return
            except asyncio.TimeoutError:
                pass
            try:
                await asyncio.wait_for(client.send_ping(), PING_INTERVAL_S * 2)
            except Exception as exc:
                if "connection closed" in describe(exc).lower() or isinstance(exc, asyncio.TimeoutError):
                    raise ServerGone(describe(exc)) from exc

    async def _listen(self, client: Any) -> None:
        """On a 2026-07-28 connection change notifications come through a ``subscriptions/listen`` stream; it also
        ends, with ``SubscriptionLost``, when the server goes away."""
        from mcp.client.subscriptions import SubscriptionLost

        try:
            async with client.listen(tools_list_changed=True, prompts_list_changed=True) as subscription:
                async for _event in subscription:
                    self._changed()
        except SubscriptionLost as exc:
            raise ServerGone(describe(exc)) from exc
        except Exception:
            # A server that does not offer the stream still works; it just cannot tell us about changes.
            await asyncio.Event().wait()

    async def _refresh_on_change(self, client: Any) -> None:
        while True:
            await self._relist.wait()
            self._relist.clear()
            await self._fetch_lists(client)
            self._on_change(self)
            if not self._relist.is_set():
                self._current.set()

    async def _on_message(self, message: Any) -> None:
        from mcp_types import PromptListChangedNotification, ToolListChangedNotification

        if isinstance(message, ToolListChangedNotification | PromptListChangedNotification):
            self._changed()

    def _changed(self) -> None:
        self._current.clear()
        self._relist.set()

    def write_log(self, text: str) -> None:
        """A line in the server's log file (its ``notifications/message`` log messages go there)."""
        if self._log is not None and not self._log.closed:
            log_line(self._log, text, who="server")

    async def _fetch_lists(self, client: Any) -> None:
        capabilities = client.server_capabilities
        tools = await all_pages(client.list_tools, "tools") if capabilities.tools is not None else []
        prompts = await all_pages(client.list_prompts, "prompts") if capabilities.prompts is not None else []
        self.tools = [tool for tool in tools if not needs_task(tool)]
        self.skipped_tools = [tool.name for tool in tools if needs_task(tool)]
        self.prompts = prompts
