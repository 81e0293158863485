"""The live conversation of one session: messages in order, each persisted and announced as it is appended."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.events import Event, MessageAdded
from engine.messages import Message
from engine.storage.session_file import SessionFile, SessionSnapshot


def new_session_id() -> str:
    return uuid.uuid4().hex[:12]


class Session:
    """Owns the message list. The system prompt is kept apart: it is rebuilt for every request (mode, date, git)."""

    def __init__(
        self,
        workspace: Path,
        *,
        model: str,
        tools: list[dict[str, Any]],
        emit: Callable[[Event], None],
        session_id: str | None = None,
        mode: str = "default",
    ) -> None:
        self.id = session_id or new_session_id()
        self.model = model
        self.tools = tools
        self.mode = mode
        self.system_prompt = ""
        self.messages: list[Message] = []
        self.created_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self._emit = emit
        self._file = SessionFile(workspace, self.id)

    @property
    def path(self) -> Path:
        return self._file.path

    def append(self, message: Message) -> None:
        self.messages.append(message)
        self.save()
        self._emit(MessageAdded(message))

    def request_messages(self) -> list[dict[str, Any]]:
        wire = [message.to_wire() for message in self.messages]
        if self.system_prompt:
            wire.insert(0, Message.system(self.system_prompt).to_wire())
        return wire

    def save(self) -> None:
        messages = ([Message.system(self.system_prompt)] if self.system_prompt else []) + self.messages
        self._file.save(
            SessionSnapshot(
                session_id=self.id,
                model=self.model,
                tools=self.tools,
                messages=messages,
                mode=self.mode,
                created_at=self.created_at,
            )
        )
