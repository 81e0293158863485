"""The JSON body of a chat request, built from texts encoded once, and sent in pieces that are never joined.

A session's history only grows, and its messages never change once made, so re-encoding all of it for every request
(what the SDK does with a body dict) costs time that grows with the session: about 3 ms a request at 400 messages.
Here each message dict is encoded once (to UTF-8), and when a request starts with the messages of the previous one
(the same dict objects: the session's own), only the new ones are encoded and appended to the bytes of the rest,
which are kept once (not also message by message).

A large body goes to the HTTP library as three pieces (its opening, the messages, its end) with its length given,
so the history's bytes are copied once a request (when the new messages are appended), not once more to put the
pieces together and again to encode them: at 200 tool results of 20 KB, 4 MB three times a request. A small one
goes whole: each piece is a write of its own, which costs more than copying a few hundred kilobytes.
"""

from __future__ import annotations

import json
import operator
from collections.abc import AsyncIterator
from typing import Any


# From this size on a body is sent in pieces rather than joined first.
PIECES_FROM_BYTES = 512 * 1024


class RequestBody:
    """The body's bytes as pieces; an async iterable of them (as the HTTP library takes a streamed body), which can
    be iterated again. ``bytes(body)`` joins them."""

    def __init__(self, pieces: tuple[bytes, ...]) -> None:
        self.pieces = pieces
        self.length = sum(len(piece) for piece in pieces)

    def content(self) -> bytes | RequestBody:
        """What to hand the HTTP library: the joined bytes when small, else the pieces (give it ``length`` too)."""
        return bytes(self) if self.length < PIECES_FROM_BYTES else self

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._each()

    async def _each(self) -> AsyncIterator[bytes]:
        for piece in self.pieces:
            yield piece

    def __bytes__(self) -> bytes:
        return b"".join(self.pieces)


class RequestBodyEncoder:
    """Keeps the JSON of the last request's messages, so the next one encodes only what is new. A leading system
    message is kept apart: a new system prompt (once a turn) leaves the history's text as it is. Any other change
    of history (a compaction, a rewind, another conversation through the same provider) encodes it again once."""

    def __init__(self) -> None:
        self._system: tuple[object, bytes] = (None, b"")  # the leading system message and its text
        self._sent: list[dict[str, Any]] = []  # the messages after it, kept alive so ids stay theirs
        self._joined = b""  # their JSON texts, UTF-8, joined by ", "
        self._tools: tuple[object, bytes] = (None, b"[]")

    def encode(self, model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
               extra: dict[str, Any]) -> RequestBody:
        """The body: ``model``, ``messages``, ``tools`` (left out when empty), then ``extra``'s keys."""
        opening = [b'{"model": ', _dumps(model), b', "messages": [']
        history = messages
        if messages and messages[0].get("role") == "system":
            if self._system[0] is not messages[0]:
                self._system = (messages[0], _dumps(messages[0]))
            history = messages[1:]
            opening += [self._system[1], b", "] if history else [self._system[1]]
        self._encode_history(history)
        closing = [b"]"]
        if tools:
            if self._tools[0] is not tools:
                self._tools = (tools, _dumps(tools))
            closing += [b', "tools": ', self._tools[1]]
        for key, value in extra.items():
            closing += [b", ", _dumps(key), b": ", _dumps(value)]
        closing.append(b"}")
        return RequestBody((b"".join(opening), self._joined, b"".join(closing)))

    def _encode_history(self, messages: list[dict[str, Any]]) -> None:
        sent = len(self._sent)
        # A pointer comparison per message, at C speed: the price of knowing that nothing was swapped in between.
        if len(messages) >= sent and all(map(operator.is_, messages, self._sent)):
            # The session appended to the history it sent last time: encode only what is new.
            new = messages[sent:]
            if new:
                texts = [_dumps(message) for message in new]
                self._joined = b", ".join([self._joined, *texts]) if self._joined else b", ".join(texts)
                self._sent += new
            return
        self._sent, self._joined = list(messages), b", ".join([_dumps(message) for message in messages])


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")
