"""The session snapshot ``.coder/sessions/<id>.json`` (SPEC 12): OpenAI-form messages, the tools offered and the
model, rewritten atomically after every message, so another program can replay any request.

Rewriting the whole file after every message must stay cheap in long sessions: each message is encoded to JSON
once, when it is added, and a save only joins the cached texts.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.messages import Message
from engine.storage.redact import default_redactor

SNAPSHOT_VERSION = 1


def sessions_dir(workspace: Path) -> Path:
    return workspace / ".coder" / "sessions"


def encode_message(message: Message) -> str:
    """The message's snapshot JSON, secrets redacted as in the database (SPEC 12)."""
    return json.dumps(redacted_record(message), ensure_ascii=False)


def redacted_record(message: Message) -> dict[str, Any]:
    return default_redactor().redact_value(message.to_record())  # type: ignore[no-any-return]


@dataclass(frozen=True)
class SnapshotHeader:
    session_id: str
    model: str
    mode: str
    created_at: str
    updated_at: str


class SessionFile:
    """Writes one session's snapshot. Every write replaces the whole file atomically (temp + rename)."""

    def __init__(self, workspace: Path, session_id: str) -> None:
        self.path = sessions_dir(workspace) / f"{session_id}.json"
        self._tmp = self.path.with_name(f".{self.path.name}.tmp")
        self._folder_ready = False
        self._tools_json = "[]"
        self._tools_source: object = None

    def save(self, header: SnapshotHeader, tools: list[dict[str, Any]], encoded_messages: list[str]) -> None:
        """``encoded_messages`` are the messages' JSON texts (``encode_message``), the system prompt first."""
        if tools is not self._tools_source:
            self._tools_json = json.dumps(tools, ensure_ascii=False)
            self._tools_source = tools
        head = json.dumps(
            {
                "version": SNAPSHOT_VERSION,
                "id": header.session_id,
                "created_at": header.created_at,
                "updated_at": header.updated_at,
                "model": header.model,
                "mode": header.mode,
            },
            ensure_ascii=False,
        )
        text = f'{head[:-1]}, "tools": {self._tools_json}, "messages": [\n' + ",\n".join(encoded_messages) + "\n]}\n"
        self._replace(text.encode("utf-8"))

    def _replace(self, data: bytes) -> None:
        """Temp file + rename, as ``write_atomic`` does, trimmed for a file rewritten after every message: one
        writer per session, so the temp name is fixed and the folder is made once."""
        if not self._folder_ready:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._folder_ready = True
        with open(self._tmp, "wb") as handle:
            handle.write(data)
        os.replace(self._tmp, self.path)


@dataclass
class LoadedSnapshot:
    session_id: str
    model: str
    mode: str
    created_at: str
    tools: list[dict[str, Any]]
    messages: list[Message]


def load_snapshot(path: Path) -> LoadedSnapshot:
    data = json.loads(path.read_text(encoding="utf-8"))
    return LoadedSnapshot(
        session_id=data["id"],
        model=data.get("model", ""),
        mode=data.get("mode", "default"),
        created_at=data.get("created_at", ""),
        tools=data.get("tools", []),
        messages=[Message.from_record(record) for record in data.get("messages", [])],
    )
