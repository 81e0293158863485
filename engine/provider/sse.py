"""Server-sent events, decoded line by line (the WHATWG event-stream rules, plus llama.cpp's ``error:`` field).

``data:`` lines accumulate until a blank line dispatches the event; ``event:`` names it; ``:`` starts a comment;
``id:`` and ``retry:`` are read and ignored. llama.cpp reports a failure as an ``error: {...}`` line, a field the
standard does not know: it becomes an event named ``error`` carrying that value.
"""

from __future__ import annotations

import codecs

from engine.record import record

_KNOWN_FIELDS = frozenset({"data", "event", "id", "retry", "error"})


@record
class SseEvent:
    event: str  # "message" unless the server named it
    data: str


class SseDecoder:
    def __init__(self) -> None:
        self._event = ""
        self._data: list[str] = []

    def line(self, line: str) -> SseEvent | None:
        """Takes one line without its line ending; returns the event a blank line completes."""
        if not line:
            return self.flush()
        if line[0] == ":":
            return None
        field, colon, value = line.partition(":")
        if colon and value[:1] == " ":
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        elif field == "error":
            # A complete event on its own line; what was pending goes first.
            pending = self.flush()
            self._event, self._data = "error", [value]
            return pending or self.flush()
        return None

    def flush(self) -> SseEvent | None:
        """The pending event, if any (also called at the end of the stream, which may lack the last blank line)."""
        if not self._data:
            self._event = ""
            return None
        event = SseEvent(self._event or "message", "\n".join(self._data))
        self._event, self._data = "", []
        return event


class LineSplitter:
    """A body's bytes, as they arrive, into lines without their endings (``\r\n``, ``\n`` or ``\r``, as the
    event-stream format allows), decoded as UTF-8: all the lines a piece completes at once, so a reader loops over
    them without a suspension per line."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._partial = ""

    def feed(self, data: bytes) -> list[str]:
        text = self._partial + self._decoder.decode(data)
        # A ``\r`` at the end may be the first half of a ``\r\n``: it waits for the next piece.
        held = "\r" if text.endswith("\r") else ""
        if held:
            text = text[:-1]
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        *lines, partial = text.split("\n")
        self._partial = partial + held
        return lines

    def finish(self) -> list[str]:
        """The last line, when the body did not end with a line ending."""
        lines = self.feed(b"")
        rest, self._partial = self._partial + self._decoder.decode(b"", final=True), ""
        lines += [line for line in rest.replace("\r\n", "\n").replace("\r", "\n").split("\n") if line]
        return lines


def looks_like_sse(line: str) -> bool:
    """Whether the first non-blank line of a body starts an event stream (a field or a comment)."""
    if line.startswith(":"):
        return True
    field, colon, _ = line.partition(":")
    return bool(colon) and field in _KNOWN_FIELDS
