"""The session snapshot ``.coder/sessions/<id>.json`` (SPEC 12): OpenAI-form messages, the tools offered and the
model, rewritten atomically after every message, so another program can replay any request."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from engine.messages import Message
from engine.storage.atomic import write_atomic

SNAPSHOT_VERSION = 1


def sessions_dir(workspace: Path) -> Path:
    return workspace / ".coder" / "sessions"


@dataclass
class SessionSnapshot:
    session_id: str
    model: str
    tools: list[dict[str, Any]]
    messages: list[Message] = field(default_factory=list)
    created_at: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    mode: str = "default"

    def to_json(self) -> dict[str, Any]:
        return {
            "version": SNAPSHOT_VERSION,
            "id": self.session_id,
            "created_at": self.created_at,
            "updated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "model": self.model,
            "mode": self.mode,
            "tools": self.tools,
            "messages": [message.to_record() for message in self.messages],
        }


class SessionFile:
    """Writes one session's snapshot. Every write replaces the whole file atomically (temp + rename)."""

    def __init__(self, workspace: Path, session_id: str) -> None:
        self.path = sessions_dir(workspace) / f"{session_id}.json"

    def save(self, snapshot: SessionSnapshot) -> None:
        payload = json.dumps(snapshot.to_json(), ensure_ascii=False, indent=1).encode("utf-8")
        write_atomic(self.path, payload + b"\n")

    @staticmethod
    def load(path: Path) -> SessionSnapshot:
        data = json.loads(path.read_text(encoding="utf-8"))
        return SessionSnapshot(
            session_id=data["id"],
            model=data.get("model", ""),
            tools=data.get("tools", []),
            messages=[Message.from_record(record) for record in data.get("messages", [])],
            created_at=data.get("created_at", ""),
            mode=data.get("mode", "default"),
        )
