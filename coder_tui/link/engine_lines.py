"""The engine process's stdout read on the app's loop, a line at a time."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class LineProtocol(asyncio.Protocol):
    def __init__(self, on_line: Callable[[str], None], on_end: Callable[[], None]) -> None:
        self._on_line = on_line
        self._on_end = on_end
        self._partial = b""

    def data_received(self, data: bytes) -> None:
        *lines, self._partial = (self._partial + data).split(b"\n")
        for line in lines:
            if line:
                self._on_line(line.decode())

    def eof_received(self) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._on_end()
