"""The terminal driver: Textual's, with a lone Esc reported as soon as its wait for more is over.

A terminal that does not speak the kitty keyboard protocol sends Esc as a bare ESC byte, which is also how every
escape sequence starts, so Textual's parser waits ``ESCDELAY`` (set short by ``coder-tui``) for more before it
reports the key. But Textual's input thread only looks at that wait when ``select`` returns, and it selects for
0.1 s: a lone Esc reached the app 100-200 ms after it was pressed, and Esc is what stops a running task. Here the
thread selects only until the parser's wait ends.

When the terminal goes away without a hangup signal (a closed pty reads as end of file; a program that is not its
session's leader gets no SIGHUP), the thread raises the hangup itself: Textual's thread would see the end of file
ever after and spin a core for as long as the orphaned app lived.

A bracketed paste is cut out of the input before the parser sees it (``coder_tui.input.bracketed_paste``): Textual's
parser would read the controls inside a paste as keys.

It also stamps the app's ``last_key_at`` as each key arrives, before the key crosses the app's message queue: a
streaming answer lets a key just typed be drawn before its own next layout (``StreamingMarkdown``).
"""

from __future__ import annotations

import os
import selectors
import signal
import time
from codecs import getincrementaldecoder

from textual import events
from textual.message import Message

from textual._parser import ParseError
from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

from coder_tui.input.bracketed_paste import PasteCutter
from coder_tui.runtime.frame_writes import OneWritePerFrame

# What Textual's input thread waits in ``select`` when no escape sequence is pending (it checks for exit meanwhile).
IDLE_SELECT_S = 0.1
# How long input that may begin a bracketed paste (a lone ESC) waits for the rest before it goes to the parser.
HELD_INPUT_S = 0.005


class PromptEscapeDriver(OneWritePerFrame, LinuxDriver):
    """``LinuxDriver`` whose input thread wakes when a pending Esc is due, and which writes a frame at once
    (``OneWritePerFrame``)."""

    def process_message(self, message: Message) -> None:
        if isinstance(message, events.Key) and hasattr(self._app, "last_key_at"):
            self._app.last_key_at = time.monotonic()
        super().process_message(message)

    def input_ended(self) -> None:
        """The terminal is gone: the app ends as on a hangup (it cancels what runs, saves, and exits with 129)."""
        os.kill(os.getpid(), signal.SIGHUP)

    def run_input_thread(self) -> None:
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        fileno = self.fileno
        parser = XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")().decode
        cutter = PasteCutter()

        def process(ready: list[tuple[selectors.SelectorKey, int]], final: bool = False) -> bool:
            """Feeds what is ready to the parser; False once the input has ended."""
            for index, (_key, mask) in enumerate(ready):
                if mask & selectors.EVENT_READ:
                    raw = os.read(fileno, 1024 * 4)
                    if not raw:
                        return False
                    text = decode(raw, final=final and index == len(ready) - 1)
                    for is_paste, piece in cutter.feed(text):
                        if is_paste:
                            self.process_message(events.Paste(piece))
                            continue
                        for event in parser.feed(piece):
                            self.process_message(event)
            if not ready and cutter.holding:  # no more input came: what was held was keys (an Esc), not a paste
                for event in parser.feed(cutter.flush()):
                    self.process_message(event)
            for event in parser.tick():
                self.process_message(event)
            return True

        def wait() -> float:
            if cutter.holding:
                return HELD_INPUT_S
            due: float | None = getattr(parser, "_timeout_time", None)  # the end of a pending escape's wait
            return IDLE_SELECT_S if due is None else min(IDLE_SELECT_S, max(due - get_time(), 0.0) + 0.001)

        try:
            while not self.exit_event.is_set():
                if not process(selector.select(wait())):
                    self.input_ended()
                    return
            selector.unregister(fileno)
            process(selector.select(IDLE_SELECT_S), final=True)
        finally:
            selector.close()
            try:
                for _event in parser.feed(""):
                    pass
            except (EOFError, ParseError):
                pass
