"""The terminal driver: Textual's, with a lone Esc reported as soon as its wait for more is over.

A terminal that does not speak the kitty keyboard protocol sends Esc as a bare ESC byte, which is also how every
escape sequence starts, so Textual's parser waits ``ESCDELAY`` (set short by ``coder-tui``) for more before it
reports the key. But Textual's input thread only looks at that wait when ``select`` returns, and it selects for
0.1 s: a lone Esc reached the app 100-200 ms after it was pressed, and Esc is what stops a running task. Here the
thread selects only until the parser's wait ends.

It also stamps the app's ``last_key_at`` as each key arrives, before the key crosses the app's message queue: a
streaming answer lets a key just typed be drawn before its own next layout (``StreamingMarkdown``).
"""

from __future__ import annotations

import os
import selectors
import time
from codecs import getincrementaldecoder

from textual import events
from textual.message import Message

from textual._parser import ParseError
from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

# What Textual's input thread waits in ``select`` when no escape sequence is pending (it checks for exit meanwhile).
IDLE_SELECT_S = 0.1


class PromptEscapeDriver(LinuxDriver):
    """``LinuxDriver`` whose input thread wakes when a pending Esc is due."""

    def process_message(self, message: Message) -> None:
        if isinstance(message, events.Key) and hasattr(self._app, "last_key_at"):
            self._app.last_key_at = time.monotonic()
        super().process_message(message)

    def run_input_thread(self) -> None:
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        fileno = self.fileno
        parser = XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")().decode

        def process(ready: list[tuple[selectors.SelectorKey, int]], final: bool = False) -> None:
            for index, (_key, mask) in enumerate(ready):
                if mask & selectors.EVENT_READ:
                    data = decode(os.read(fileno, 1024 * 4), final=final and index == len(ready) - 1)
                    if not data:
                        break  # stdin is a pipe that ended
                    for event in parser.feed(data):
                        self.process_message(event)
            for event in parser.tick():
                self.process_message(event)

        def wait() -> float:
            due: float | None = getattr(parser, "_timeout_time", None)  # the end of a pending escape's wait
            return IDLE_SELECT_S if due is None else min(IDLE_SELECT_S, max(due - get_time(), 0.0) + 0.001)

        try:
            while not self.exit_event.is_set():
                process(selector.select(wait()))
            selector.unregister(fileno)
            process(selector.select(IDLE_SELECT_S), final=True)
        finally:
            selector.close()
            try:
                for _event in parser.feed(""):
                    pass
            except (EOFError, ParseError):
                pass
