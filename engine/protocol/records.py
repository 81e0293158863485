"""``MessageRecord``: a conversation message as it crosses the engine protocol, without pydantic.

The engine's ``engine.messages.Message`` is a pydantic model; the UI process must not import pydantic (it would
slow its start), so the protocol sends a message in its session-file form (``Message.to_record()``) and the UI reads
it as this plain frozen dataclass, which offers the same read-only attributes the UI uses.
"""

from __future__ import annotations

import json
from dataclasses import field
from typing import Any

from engine.record import record


@record
class ToolCallRecord:
    id: str
    name: str
    arguments: str = ""  # JSON text, exactly as the model produced it

    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments as a dict; ``ValueError`` when they are not a JSON object."""
        try:
            value = json.loads(self.arguments.strip() or "{}")
        except json.JSONDecodeError as exc:
            raise ValueError(f"invalid JSON arguments for {self.name}: {exc.msg}") from exc
        if not isinstance(value, dict):
            raise ValueError(f"arguments for {self.name} must be a JSON object")
        return value


@record
class MessageRecord:
    role: str
    content: str | None = None
    name: str | None = None
    tool_calls: tuple[ToolCallRecord, ...] | None = None
    tool_call_id: str | None = None
    reasoning: str | None = None
    interrupted: bool = False
    # The session-file form it was read from, so it can be sent on unchanged.
    record: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> MessageRecord:
        calls = record.get("tool_calls")
        return cls(
            role=record["role"],
            content=record.get("content"),
            name=record.get("name"),
            tool_calls=tuple(
                ToolCallRecord(call["id"], call["function"]["name"], call["function"].get("arguments", ""))
                for call in calls
            )
            if calls
            else None,
            tool_call_id=record.get("tool_call_id"),
            reasoning=record.get("reasoning"),
            interrupted=bool(record.get("interrupted", False)),
            record=dict(record),
        )

    def to_record(self) -> dict[str, Any]:
        """The session-file dict this record was read from."""
        return dict(self.record)
