"""``coder-tui acp``: the Agent Client Protocol agent (SPEC 24) on the ``agent-client-protocol`` SDK, which owns the
JSON-RPC framing, the schema and version negotiation. Each ACP session is one ``AcpSession`` (an ``EngineHost`` for
the client's cwd), so Zed, JetBrains or Toad drive the same turn, tools, policy, sandbox and storage as the TUI.

The engine's own file tools and bash run even when the client offers ``fs/*`` or terminals: the workspace guard,
the sandbox and the undo journal stay in force.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError
from acp.helpers import update_available_commands
from acp.schema import (
    AgentCapabilities,
    AvailableCommand,
    EmbeddedResourceContentBlock,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResourceContentBlock,
    SessionMode,
    SessionModeState,
    SetSessionModeResponse,
    TextContentBlock,
)

from engine.modes import Mode
from engine.server.acp.session import AcpSession

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

    def on_connect(self, conn: Any) -> None:
        self._client = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        from importlib.metadata import PackageNotFoundError, version

        try:
            ours = version("coder-tui")
        except PackageNotFoundError:
            ours = "dev"
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True, prompt_capabilities=PromptCapabilities(embedded_context=True)
            ),
            agent_info=Implementation(name="coder-tui", title="coder-tui", version=ours),
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        return None  # the model server's key comes from the environment, as for the TUI

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        session = await self._open(cwd)
        self._sessions[session.session_id] = session
        await self._advertise(session)
        return NewSessionResponse(session_id=session.session_id, modes=mode_state(session.mode))

    async def load_session(self, cwd: str, session_id: str, **kwargs: Any) -> LoadSessionResponse:
        session = await self._open(cwd)
        try:
            await session.load(session_id)
        except ValueError as exc:
            await session.aclose()
            raise RequestError.invalid_params({"sessionId": session_id, "message": str(exc)}) from exc
        self._sessions[session.session_id] = session
        await self._advertise(session)
        return LoadSessionResponse(modes=mode_state(session.mode))

    async def set_session_mode(self, mode_id: str, session_id: str, **kwargs: Any) -> SetSessionModeResponse:
        session = self._session(session_id)
        try:
            Mode.parse(mode_id)
        except ValueError as exc:
            raise RequestError.invalid_params({"modeId": mode_id, "message": str(exc)}) from exc
        session.set_mode(mode_id)
        await session.flush()
        return SetSessionModeResponse()

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        session = self._session(session_id)
        text = prompt_text(prompt, session.workspace)
        if not text.strip():
            raise RequestError.invalid_params({"message": "the prompt has no text"})
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
    async def _open(self, cwd: str) -> AcpSession:
        workspace = Path(cwd).expanduser()
        if not workspace.is_absolute() or not workspace.is_dir():
            raise RequestError.invalid_params({"cwd": cwd, "message": "cwd must be an absolute path to a folder"})
        session = AcpSession(self._client, workspace.resolve())
        try:
            await session.start()
        except Exception as exc:  # a damaged database or config: say which, keep serving
            log.exception("session start failed")
            raise RequestError.internal_error({"message": f"{type(exc).__name__}: {exc}"}) from exc
        return session

    def _session(self, session_id: str) -> AcpSession:
        session = self._sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"sessionId": session_id, "message": "no such session"})
        return session

    async def _advertise(self, session: AcpSession) -> None:
        commands = [
            AvailableCommand(name=name.lstrip("/"), description=summary) for name, summary in session.slash_commands()
        ]
        await self._client.session_update(session_id=session.session_id, update=update_available_commands(commands))


def prompt_text(blocks: list[Any], workspace: Path) -> str:
    """A prompt's content blocks as one input: text as it is; a resource link inside the workspace as an
    ``@path`` mention (so the engine attaches it as it does in the TUI); an embedded text resource as context."""
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            parts.append(_mention(block.uri, workspace))
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            text = getattr(resource, "text", None)
            if isinstance(text, str):
                parts.append(f'\n<context uri="{resource.uri}">\n{text}\n</context>\n')
    return " ".join(part for part in parts if part)


def _mention(uri: str, workspace: Path) -> str:
    path = Path(uri.removeprefix("file://"))
    try:
        return "@" + path.resolve().relative_to(workspace).as_posix()
    except ValueError:
        return uri
