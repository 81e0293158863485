"""Joins the chunks of one streamed completion into the assistant ``Message`` it describes.

Servers differ in how they cut tool calls into deltas: OpenAI sends id and name once, then argument pieces; others
repeat the id and name on every delta, send the name late, or never send an id. Joining by ``index`` and taking id
and name from the first delta that carries them handles all of these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import count

from engine.messages import FunctionCall, Message, ToolCall, Usage
from engine.provider.base import (
    FinishChunk,
    ReasoningChunk,
    RetryNotice,
    StreamChunk,
    TextChunk,
    ToolCallChunk,
    UsageChunk,
)

# Numbers the assemblers of this process, so ids generated for id-less calls never repeat across messages.
_assembler_serials = count(1)


@dataclass
class _PartialCall:
    id: str | None = None
    name: str | None = None
    arguments: list[str] = field(default_factory=list)


class StreamAssembler:
    """Pure accumulator: ``feed`` every chunk of one stream, then read ``message()``."""

    def __init__(self) -> None:
        self._serial = next(_assembler_serials)
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._calls: dict[int, _PartialCall] = {}
        self._usage: Usage | None = None
        self._finish_reason: str | None = None

    def feed(self, chunk: StreamChunk) -> None:
        match chunk:
            case TextChunk(text=text):
                self._text.append(text)
            case ReasoningChunk(text=text):
                self._reasoning.append(text)
            case ToolCallChunk(index=index, id=call_id, name=name, arguments=arguments):
                call = self._calls.setdefault(index, _PartialCall())
                call.id = call.id or call_id or None
                call.name = call.name or name or None
                call.arguments.append(arguments)
            case UsageChunk(usage=usage):
                self._usage = usage
            case FinishChunk(reason=reason):
                self._finish_reason = reason
            case RetryNotice():
                pass  # retries happen before the first content chunk, so there is nothing to reset

    @property
    def text(self) -> str:
        return "".join(self._text)

    @property
    def reasoning(self) -> str:
        return "".join(self._reasoning)

    @property
    def usage(self) -> Usage | None:
        return self._usage

    @property
    def finish_reason(self) -> str | None:
        return self._finish_reason

    @property
    def problems(self) -> list[str]:
        """Why some tool-call deltas did not become a tool call (a call that never got a name is dropped)."""
        return [
            f"dropped the tool call at index {index}: the server never sent its function name "
            f"(arguments: {''.join(call.arguments)[:200]!r})"
            for index, call in sorted(self._calls.items())
            if not call.name
        ]

    def tool_calls(self) -> list[ToolCall]:
        """The complete tool calls in index order; an id-less call gets ``call_<index>_<n>``, the same each time."""
        return [
            ToolCall(
                id=call.id or f"call_{index}_{self._serial}",
                function=FunctionCall(name=call.name, arguments="".join(call.arguments)),
            )
            for index, call in sorted(self._calls.items())
            if call.name
        ]

    def message(self, interrupted: bool = False) -> Message:
        """The assistant message; ``interrupted`` marks a stream cut short (its text is kept as it is)."""
        message = Message.assistant(self.text or None, self.tool_calls(), self.reasoning or None)
        return message.model_copy(update={"interrupted": True}) if interrupted else message
