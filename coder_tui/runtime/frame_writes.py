"""A frame reaches the terminal in one write.

Textual writes each frame as three pieces (begin synchronized update, the frame, end synchronized update), and its
driver hands every piece to its output thread through a queue: three wake-ups of that thread a frame, each taking
the interpreter's lock from the event loop in the middle of its work, and up to three ``write`` calls, two of them
a dozen bytes. While an answer streams and the user types, that is a hundred frames a second. Here the pieces of
one frame are joined and handed over once.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class OneWritePerFrame:
    """Put before the driver class: ``class Driver(OneWritePerFrame, LinuxDriver)``; the app draws each frame inside
    ``one_write()``."""

    _held: list[str] | None = None

    def write(self, data: str) -> None:
        if self._held is not None:
            self._held.append(data)
        else:
            super().write(data)  # type: ignore[misc]

    @contextmanager
    def one_write(self) -> Iterator[None]:
        """Holds what is written meanwhile, then writes it at once."""
        if self._held is not None:  # already inside a frame
            yield
            return
        self._held = held = []
        try:
            yield
        finally:
            self._held = None
            if held:
                super().write("".join(held))  # type: ignore[misc]
