"""Joins the chunks of one streamed completion into the assistant ``Message`` it describes.

Servers differ in how they cut tool calls into deltas: OpenAI sends id and name once, then argument pieces; others
repeat the id and name on every delta, send the name late, or never send an id. Joining by ``index`` and taking id
and name from the first delta that carries them handles all of these. Ollama sends parallel calls whole, each with
``index`` 0 and its own id: a delta with another id starts a new call when it names another function or the call
at its index holds complete JSON arguments, and so does a named delta (with no ids at all) once the call at its
index holds complete JSON arguments. A delta that changes the id but names no new function (Poolside renumbers the
pieces of one call; some servers repeat the name on every piece) adds to the call it follows, which keeps its first
id. Ids a server repeats across turns (Kimi K2 counts ``functions.read:0`` from 0 again each turn) are made unique
against the ids the history already holds (``taken_ids``), in the server's own form where the id ends in a count
(``functions.read:1``: Kimi's template reads that form back).
A call that never got a name is kept with an empty one, so the tool step tells the model instead of dropping it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from itertools import count
from typing import Any

from engine.messages import FunctionCall, Message, ToolCall, Usage
from engine.provider.base import (
    ExtraChunk,
    FinishChunk,
    ReasoningChunk,
    RetryNotice,
    StreamChunk,
    TextChunk,
    ToolCallChunk,
    UsageChunk,
)
from engine.provider.delta_merge import merge_fields
from engine.provider.think_tags import split_prefilled

# An id that ends in a count, as Kimi K2's ``functions.read:0``.
_COUNTED_ID = re.compile(r"^(.*:)(\d+)$")
# Numbers the assemblers of this process, so ids generated for id-less calls never repeat across messages.
_assembler_serials = count(1)


@dataclass
class _PartialCall:
    index: int
    id: str | None = None
    name: str | None = None
    arguments: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def arguments_complete(self) -> bool:
        text = "".join(self.arguments).strip()
        if not text:
            return False
        try:
            json.loads(text)
        except ValueError:
            return False
        return True


class StreamAssembler:
    """Pure accumulator: ``feed`` every chunk of one stream, then read ``message()``."""

    def __init__(self, taken_ids: set[str] | frozenset[str] = frozenset()) -> None:
        self._taken_ids = taken_ids  # tool-call ids the history already holds
        self._serial = next(_assembler_serials)
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._refusal: list[str] = []
        self._extra: dict[str, Any] = {}
        self._calls: list[_PartialCall] = []
        self._current: dict[int, _PartialCall] = {}  # the call each index adds to now
        self._usage: Usage | None = None
        self._finish_reason: str | None = None

    def feed(self, chunk: StreamChunk) -> None:
        match chunk:
            case TextChunk(text=text, refusal=refusal):
                self._text.append(text)
                if refusal:
                    self._refusal.append(text)
            case ReasoningChunk(text=text):
                self._reasoning.append(text)
            case ToolCallChunk(index=index, id=call_id, name=name, arguments=arguments, extra=extra):
                call = self._call_for(index, call_id, name)
                call.id = call.id or call_id or None
                call.name = call.name or name or None
                call.arguments.append(arguments)
                if extra:
                    merge_fields(call.extra, extra)
            case ExtraChunk(fields=fields):
                merge_fields(self._extra, fields)
            case UsageChunk(usage=usage):
                self._usage = usage
            case FinishChunk(reason=reason):
                self._finish_reason = reason
            case RetryNotice():
                pass  # retries happen before the first content chunk, so there is nothing to reset

    def _call_for(self, index: int, call_id: str | None, name: str | None) -> _PartialCall:
        call = self._current.get(index)
        starts_new = call is None or (
            (
                call_id is not None and call.id is not None and call_id != call.id and bool(name)
                and (name != call.name or call.arguments_complete())
            )
            or (call_id is None and call.id is None and name and call.name and call.arguments_complete())
        )
        if starts_new:
            call = _PartialCall(index)
            self._calls.append(call)
            self._current[index] = call
        assert call is not None
        return call

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
        """What the model is told about through its tool results, shown to the user as well."""
        return [
            f"the server sent a tool call without a function name (arguments: {''.join(call.arguments)[:200]!r})"
            for call in self._calls
            if not call.name
        ]

    def tool_calls(self) -> list[ToolCall]:
        """The tool calls in index order (calls sharing an index in arrival order); an id-less call gets
        ``call_<index>_<n>``, the same each time it is asked for."""
        ordered = sorted(enumerate(self._calls), key=lambda item: (item[1].index, item[0]))
        calls: list[ToolCall] = []
        for position, call in ordered:
            generated = f"call_{max(call.index, 0)}_{self._serial}"
            if any(made.id == generated for made in calls):
                generated += f"_{position}"
            call_id = self._unique(call.id or generated, calls, position)
            calls.append(
                ToolCall(
                    id=call_id,
                    function=FunctionCall(name=call.name or "", arguments="".join(call.arguments)),
                    extra=call.extra or None,
                )
            )
        return calls

    def _unique(self, call_id: str, made: list[ToolCall], position: int) -> str:
        """``call_id``, or a variant of it that neither the history nor this message holds yet: the next free count
        for an id that ends in ``:N``, else the id with this stream's serial and the call's place appended."""
        def taken(candidate: str) -> bool:
            return candidate in self._taken_ids or any(call.id == candidate for call in made)

        if not taken(call_id):
            return call_id
        counted = _COUNTED_ID.match(call_id)
        if counted:
            number = int(counted.group(2)) + 1
            while taken(f"{counted.group(1)}{number}"):
                number += 1
            return f"{counted.group(1)}{number}"
        unique, attempt = f"{call_id}_{self._serial}_{position}", 1
        while taken(unique):
            attempt += 1
            unique = f"{call_id}_{self._serial}_{position}_{attempt}"
        return unique

    def message(self, interrupted: bool = False) -> Message:
        """The assistant message; ``interrupted`` marks a stream cut short (its text is kept, its tool calls are
        dropped: without results they would make the history invalid)."""
        text, reasoning = self.text, self.reasoning
        if not reasoning and "</think>" in text and (split := split_prefilled(text)) is not None:
            text, reasoning = split
        refusal = "".join(self._refusal)
        return Message(
            role="assistant",
            content=text or None,
            tool_calls=None if interrupted else (self.tool_calls() or None),
            reasoning=reasoning or None,
            refusal=refusal or None,
            extra=self._extra or None,
            interrupted=interrupted,
        )
