"""The live conversation of one session: messages in order, each persisted and announced as it is appended."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from engine.events import Event, MessageAdded
from engine.messages import Message
from engine.storage.store import Store
from engine.storage.session_file import SessionFile, SnapshotHeader, encode_message, redacted_record


def new_session_id() -> str:
    return uuid.uuid4().hex[:12]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Session:
    """Owns the message list. The system prompt is kept apart: it is rebuilt for every request (mode, date, git).

    Messages are never changed once appended, so their wire dicts and their snapshot JSON are made once each.
    """

    def __init__(
        self,
        workspace: Path,
        *,
        model: str,
        tools: list[dict[str, Any]],
        emit: Callable[[Event], None],
        store: Store | None,
        session_id: str | None = None,
        mode: str = "default",
        messages: Sequence[Message] = (),
        created_at: str | None = None,
    ) -> None:
        """A new session, or (``messages`` given) one restored from the store, which must already hold them.
        Without a store the conversation lives in memory only (a sub-agent's), with no snapshot file either."""
        self.id = session_id or new_session_id()
        self.model = model
        self.tools = tools
        self.mode = mode
        self.system_prompt = ""
        self.created_at = created_at or _now()
        self._messages: list[Message] = list(messages)
        self._wire: list[dict[str, Any]] = [message.to_wire() for message in messages]
        self._encoded: list[str] = [encode_message(message) for message in messages]
        self._system_cache: tuple[str, str] = ("", "")
        self._emit = emit
        self._store = store
        self._file = SessionFile(workspace, self.id) if store is not None else None

    @property
    def path(self) -> Path:
        if self._file is None:
            raise RuntimeError("an in-memory session has no snapshot file")
        return self._file.path

    @property
    def messages(self) -> tuple[Message, ...]:
        return tuple(self._messages)

    def append(self, message: Message) -> None:
        """The database first (the durable log), then the snapshot file, then the announcement."""
        record = redacted_record(message)
        if self._store is not None:
            self._store.append_message(self.id, message, redacted=record)
        self._messages.append(message)
        self._wire.append(message.to_wire())
        self._encoded.append(json.dumps(record, ensure_ascii=False))
        self.save()
        self._emit(MessageAdded(message))

    def replace_messages(self, messages: Sequence[Message]) -> None:
        """After a compaction: the history becomes ``messages`` (the summary, then the kept ones), in the database
        and the snapshot alike, so a resume continues from what the model saw."""
        if self._store is not None:
            self._store.replace_messages(self.id, messages)
        self._messages = list(messages)
        self._wire = [message.to_wire() for message in self._messages]
        self._encoded = [encode_message(message) for message in self._messages]
        self.save()

    def request_messages(self) -> list[dict[str, Any]]:
        if not self.system_prompt:
            return list(self._wire)
        return [Message.system(self.system_prompt).to_wire(), *self._wire]

    def _encoded_system_prompt(self) -> str:
        """The system prompt changes once a turn at most, and a save comes after every message: encode it once."""
        if self._system_cache[0] != self.system_prompt:
            self._system_cache = (self.system_prompt, encode_message(Message.system(self.system_prompt)))
        return self._system_cache[1]

    def save(self) -> None:
        if self._file is None:
            return
        encoded = self._encoded
        if self.system_prompt:
            encoded = [self._encoded_system_prompt(), *encoded]
        header = SnapshotHeader(self.id, self.model, self.mode, self.created_at, _now())
        self._file.save(header, self.tools, encoded)
