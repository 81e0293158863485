"""``coder-tui acp``: the Agent Client Protocol agent (SPEC 24) on the ``agent-client-protocol`` SDK, which owns the
JSON-RPC framing, the schema and version negotiation. Each ACP session is one ``AcpSession`` (an ``EngineHost`` for
the client's cwd), so Zed, JetBrains or Toad drive the same turn, tools, policy, sandbox and storage as the TUI.

Supported: ``session/new``, ``session/load`` (the conversation told again), ``session/resume`` (without it),
``session/list``, ``session/close``, prompts with text, images, resource links and embedded text resources, the
client's MCP servers (stdio, HTTP, SSE), the four modes as session modes and the model as a session config option.

The engine's own file tools and bash run even when the client offers ``fs/*`` or terminals: the workspace guard,
the sandbox and the undo journal stay in force.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AgentCapabilities,
    CloseSessionResponse,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResumeSessionResponse,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionListCapabilities,
    SessionMode,
    SessionModeState,
    SessionResumeCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from engine.errors import ConfigError
from engine.modes import Mode
from engine.server.acp.config_options import MODEL_OPTION, config_options
from engine.server.acp.listing import list_sessions
from engine.server.acp.mcp_servers import McpServerError, client_server_specs
from engine.server.acp.prompt import PromptError, prompt_text
from engine.server.acp.session import AcpSession
from engine.server.acp.worktree import WORKTREE_META, new_worktree
from engine.server.acp.updates import commands_update

log = logging.getLogger(__name__)

MODES = (
    (Mode.DEFAULT, "Default", "reads freely; asks before edits and commands"),
    (Mode.AUTO_EDIT, "Auto-edit", "edits without asking; asks before other commands"),
    (Mode.PLAN, "Plan", "read-only: no edits, no mutating commands"),
    (Mode.YOLO, "Yolo", "asks nothing; the workspace guard still holds"),
)


def mode_state(current: str) -> SessionModeState:
    return SessionModeState(
        current_mode_id=current,
        available_modes=[SessionMode(id=mode.value, name=name, description=text) for mode, name, text in MODES],
    )


class CoderAgent:
    def __init__(self) -> None:
        self._client: Any = None
        self._sessions: dict[str, AcpSession] = {}
        # What the client can show of MCP elicitation (its ``clientCapabilities.elicitation``).
        self._elicitation: Any = None

    def on_connect(self, conn: Any) -> None:
        self._client = conn

    async def initialize(
        self, protocol_version: int, client_capabilities: Any = None, **kwargs: Any
    ) -> InitializeResponse:
        from importlib.metadata import PackageNotFoundError, version

        self._elicitation = getattr(client_capabilities, "elicitation", None)
        try:
            ours = version("coder-tui")
        except PackageNotFoundError:
            ours = "dev"
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=True, embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
                session_capabilities=SessionCapabilities(
                    list=SessionListCapabilities(),
                    resume=SessionResumeCapabilities(),
                    close=SessionCloseCapabilities(),
                ),
            ),
            agent_info=Implementation(name="coder-tui", title="coder-tui", version=ours),
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        return None  # the model server's key comes from the environment, as for the TUI

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any) -> NewSessionResponse:
        """``_meta: {"coder.worktree": NAME}`` (or ``true`` for a name made up): the session works on a new git
        worktree and branch ``coder/NAME`` of the folder (SPEC 26), named in the answer's ``_meta``."""
        meta: dict[str, Any] | None = None
        if (asked := kwargs.get(WORKTREE_META)) is not None:
            worktree = await new_worktree(_folder(cwd), asked)
            cwd = str(worktree.workspace)
            meta = {WORKTREE_META: {"branch": worktree.branch, "path": str(worktree.root)}}
        session = await self._open(cwd, mcp_servers)
        self._sessions[session.session_id] = session
        await self._advertise(session)
        return NewSessionResponse(
            session_id=session.session_id, modes=mode_state(session.mode), config_options=self._options(session),
            field_meta=meta,
        )

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> LoadSessionResponse:
        session = await self._reopen(cwd, session_id, mcp_servers, replay=True)
        return LoadSessionResponse(modes=mode_state(session.mode), config_options=self._options(session))

    async def resume_session(
        self, session_id: str, cwd: str, mcp_servers: list[Any] | None = None, **kwargs: Any
    ) -> ResumeSessionResponse:
        session = await self._reopen(cwd, session_id, mcp_servers, replay=False)
        return ResumeSessionResponse(modes=mode_state(session.mode), config_options=self._options(session))

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any) -> ListSessionsResponse:
        folders = {session.workspace for session in self._sessions.values()}
        if cwd is not None:
            folders = {_folder(cwd)}
        try:
            return list_sessions(sorted(folders), cursor)
        except ValueError as exc:
            raise RequestError.invalid_params({"cursor": cursor, "message": str(exc)}) from exc

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        session = self._session(session_id)
        session.cancel()
        del self._sessions[session_id]
        await session.aclose()
        return CloseSessionResponse()

    async def set_session_mode(self, mode_id: str, session_id: str, **kwargs: Any) -> SetSessionModeResponse:
        session = self._session(session_id)
        try:
            Mode.parse(mode_id)
        except ValueError as exc:
            raise RequestError.invalid_params({"modeId": mode_id, "message": str(exc)}) from exc
        session.set_mode(mode_id)
        await session.flush()
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        session = self._session(session_id)
        if config_id != MODEL_OPTION:
            raise RequestError.invalid_params({"configId": config_id, "message": f"no option {config_id!r} (model)"})
        if not isinstance(value, str) or not value.strip():
            raise RequestError.invalid_params({"value": value, "message": "the model is a name"})
        try:
            session.set_model(value.strip())
        except ConfigError as exc:  # an unknown provider profile
            raise RequestError.invalid_params({"value": value, "message": str(exc)}) from exc
        await session.flush()
        return SetSessionConfigOptionResponse(config_options=self._options(session))

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        session = self._session(session_id)
        try:
            text = prompt_text(prompt, session.workspace)
        except PromptError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from exc
        if not text.strip():
            raise RequestError.invalid_params({"message": "the prompt has no text, image or resource"})
        return PromptResponse(stop_reason=await session.prompt(text))  # type: ignore[arg-type]

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self._sessions.get(session_id)
        if session is not None:
            session.cancel()

    async def aclose(self) -> None:
        for session in self._sessions.values():
            await session.aclose()
        self._sessions.clear()

    # -- inside -----------------------------------------------------------------------------------------------------
    async def _open(self, cwd: str, mcp_servers: list[Any] | None) -> AcpSession:
        workspace = _folder(cwd)
        try:
            servers = client_server_specs(mcp_servers)
        except McpServerError as exc:
            raise RequestError.invalid_params({"mcpServers": str(exc), "message": str(exc)}) from exc
        session = AcpSession(self._client, workspace)
        session.elicitation = self._elicitation
        try:
            await session.start(servers)
        except Exception as exc:  # a damaged database or config: say which, keep serving
            log.exception("session start failed")
            await session.aclose()
            raise RequestError.internal_error({"message": f"{type(exc).__name__}: {exc}"}) from exc
        return session

    async def _reopen(self, cwd: str, session_id: str, mcp_servers: list[Any] | None, *, replay: bool) -> AcpSession:
        if (open_session := self._sessions.pop(session_id, None)) is not None:
            await open_session.aclose()  # the stored session is taken over by the new engine
        session = await self._open(cwd, mcp_servers)
        try:
            await session.load(session_id, replay=replay)
        except ValueError as exc:
            await session.aclose()
            raise RequestError.invalid_params({"sessionId": session_id, "message": str(exc)}) from exc
        self._sessions[session.session_id] = session
        await self._advertise(session)
        return session

    def _session(self, session_id: str) -> AcpSession:
        session = self._sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"sessionId": session_id, "message": "no such session"})
        return session

    def _options(self, session: AcpSession) -> list[Any]:
        assert session.host.orchestrator is not None
        return config_options(session.host.orchestrator, session.models_chosen)

    async def _advertise(self, session: AcpSession) -> None:
        await self._client.session_update(session_id=session.session_id, update=commands_update(session.slash_commands()))


def _folder(cwd: str) -> Path:
    workspace = Path(cwd).expanduser()
    if not workspace.is_absolute() or not workspace.is_dir():
        raise RequestError.invalid_params({"cwd": cwd, "message": "cwd must be an absolute path to a folder"})
    return workspace.resolve()
