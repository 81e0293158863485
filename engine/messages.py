"""OpenAI Chat Completions message types.

They serialise (``to_wire``) to exactly the shape the Chat Completions API takes and returns, so a session file
holding them can be replayed against any OpenAI-compatible server.

Round trip (SPEC 18): what a server sends on an assistant message or a tool call beyond the standard fields
(``reasoning_content``, ``reasoning_details``, Gemini's ``extra_content``, fields nobody knows yet) is kept in
``extra``, written to the session file as the server named it, and sent back unchanged in later requests.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["system", "user", "assistant", "tool"]


class FunctionCall(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    arguments: str = ""  # JSON text, exactly as the model produced it


class ToolCall(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    type: Literal["function"] = "function"
    function: FunctionCall
    extra: dict[str, Any] | None = None

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"id": self.id, "type": "function", "function": self.function.model_dump()}
        if self.extra:
            wire.update((key, value) for key, value in self.extra.items() if key not in wire)
        return wire

    @classmethod
    def from_wire(cls, wire: dict[str, Any]) -> ToolCall:
        extra = {key: value for key, value in wire.items() if key not in _CALL_FIELDS}
        known = {key: value for key, value in wire.items() if key in _CALL_FIELDS}
        return cls.model_validate({**known, "extra": extra or None})

    @property
    def name(self) -> str:
        return self.function.name

    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments as a dict; raises ``ValueError`` with a readable reason when they are not a JSON object."""
        text = self.function.arguments.strip() or "{}"
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"invalid JSON arguments for {self.name}: {exc.msg} at position {exc.pos}") from exc
        if not isinstance(value, dict):
            raise ValueError(f"arguments for {self.name} must be a JSON object, got {type(value).__name__}")
        return value


class ImageRef(BaseModel):
    """An image attached to a user message: the blob holding its bytes (``.coder/blobs/<sha256>.<ext>``), its type
    and the name the user gave. The session file keeps this reference; the request carries the image itself."""

    model_config = ConfigDict(frozen=True)

    blob: str
    mime: str
    name: str

    def wire_part(self) -> dict[str, Any]:
        """The ``image_url`` part (a base64 data URL); a text note when the blob is gone (or is not one: SPEC 19)."""
        import base64

        from engine.storage.sessions.blobs import read_blob

        data = read_blob(self.blob)
        if data is None:
            return {"type": "text", "text": f"[image {self.name} is no longer available]"}
        url = f"data:{self.mime};base64,{base64.b64encode(data).decode('ascii')}"
        return {"type": "image_url", "image_url": {"url": url}}


class Message(BaseModel):
    """One conversation message. ``interrupted`` is ours (not sent to the API): the stream was cancelled."""

    role: Role
    content: str | None = None
    name: str | None = None
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None
    reasoning: str | None = None
    refusal: str | None = None  # the answer was a refusal (OpenAI's ``refusal``); ``content`` holds it too
    extra: dict[str, Any] | None = None
    interrupted: bool = False
    # Images the user attached (``@shot.png`` or a pasted path); sent as ``image_url`` parts after the text.
    images: list[ImageRef] | None = None
    # Ours, for a resumed transcript to show what the live one did (never sent to the API): a tool message's final
    # state (``ToolStatus`` value) and how long its call ran; on a user message, who wrote it: "note" for what the
    # engine tells the model of the user's action (an undo), which the transcript shows as a note, not as a request.
    status: str | None = None
    duration_ms: float | None = None
    origin: Literal["note"] | None = None

    @classmethod
    def system(cls, content: str) -> Message:
        return cls(role="system", content=content)

    @classmethod
    def user(cls, content: str) -> Message:
        return cls(role="user", content=content)

    @classmethod
    def assistant(
        cls, content: str | None, tool_calls: list[ToolCall] | None = None, reasoning: str | None = None
    ) -> Message:
        return cls(role="assistant", content=content, tool_calls=tool_calls or None, reasoning=reasoning or None)

    @classmethod
    def tool(cls, tool_call_id: str, name: str, content: str) -> Message:
        return cls(role="tool", tool_call_id=tool_call_id, name=name, content=content)

    def to_wire(self) -> dict[str, Any]:
        """The dict sent to ``chat.completions.create``: only the keys the API knows, no empty ones."""
        wire: dict[str, Any] = {"role": self.role}
        if self.role == "assistant":
            # An assistant message with tool calls may have null content; the API accepts it.
            wire["content"] = self.content if self.content is not None else (None if self.tool_calls else "")
            if self.tool_calls:
                wire["tool_calls"] = [call.to_wire() for call in self.tool_calls]
            if self.refusal:
                wire["refusal"] = self.refusal
            if self.extra:
                wire.update((key, value) for key, value in self.extra.items() if key not in wire)
        elif self.images:
            wire["content"] = [{"type": "text", "text": self.content or ""}, *(i.wire_part() for i in self.images)]
        else:
            wire["content"] = self.content or ""
        if self.role == "tool":
            wire["tool_call_id"] = self.tool_call_id
        if self.name and self.role in ("tool", "user"):
            wire["name"] = self.name
        return wire

    def to_record(self) -> dict[str, Any]:
        """The session-file form: the wire form plus ``reasoning``, ``interrupted``, a tool message's ``status`` and
        ``duration_ms`` and a note's ``origin`` when present."""
        record = self.to_wire()
        if self.reasoning:
            record["reasoning"] = self.reasoning
        if self.interrupted:
            record["interrupted"] = True
        if self.status is not None:
            record["status"] = self.status
        if self.duration_ms is not None:
            record["duration_ms"] = self.duration_ms
        if self.origin is not None:
            record["origin"] = self.origin
        if self.images:
            # The reference, not the bytes: the content stays the text the user wrote.
            record["content"] = self.content or ""
            record["images"] = [image.model_dump() for image in self.images]
        return record

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Message:
        """The inverse of ``to_record``: fields it does not know are an assistant message's ``extra``."""
        known = {key: value for key, value in record.items() if key in _MESSAGE_FIELDS}
        if known.get("tool_calls"):
            known["tool_calls"] = [ToolCall.from_wire(call) for call in known["tool_calls"]]
        if record.get("role") == "assistant":
            extra = {key: value for key, value in record.items() if key not in _MESSAGE_FIELDS}
            known["extra"] = extra or None
        return cls.model_validate(known)


_CALL_FIELDS = frozenset({"id", "type", "function"})
_MESSAGE_FIELDS = frozenset(
    {
        "role", "content", "name", "tool_calls", "tool_call_id", "reasoning", "refusal", "interrupted", "images",
        "status", "duration_ms", "origin",
    }
)


class ToolDef(BaseModel):
    """One entry of the OpenAI ``tools`` array."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})

    def to_wire(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


class Usage(BaseModel):
    model_config = ConfigDict(frozen=True)

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    # Of the prompt tokens, those the server read from its prompt cache (billed lower, sent faster; SPEC 27).
    cached_tokens: int = 0
