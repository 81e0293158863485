"""The stdio transport: the engine process reads commands from stdin and writes replies to stdout, one JSON object
per line. Stdout carries nothing else: the real stdout is kept for the protocol and fd 1 is pointed at stderr, so a
stray print from a library cannot corrupt the stream. After ``Detach`` the pipes are left alone and the engine serves
the clients that attach over its socket (``engine.server.detached``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator

from engine.server.detached import DetachedServing
from engine.server.host import EngineOptions
from engine.signals import install_ending_signals
from engine.server.lines import LineSession


# A resumed session's history is one line of about a megabyte for 5,000 messages: in a pipe of the default 64 KiB the
# engine would hand it over in sixteen round trips with the UI, each waiting for the other to be scheduled.
PIPE_BYTES = 1 << 20


class LineWriter:
    """Writes lines to a file descriptor, the lines of one loop iteration in one write (a streamed answer emits
    many small events at once)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer: list[str] = []
        self._closed = False

    def __call__(self, line: str) -> None:
        if self._closed:
            return
        if not self._buffer:
            asyncio.get_running_loop().call_soon(self.flush)
        self._buffer.append(line)

    def flush(self) -> None:
        data = ("\n".join(self._buffer) + "\n").encode() if self._buffer else b""
        self._buffer.clear()
        try:
            while data:
                data = data[os.write(self._fd, data):]
        except OSError:  # the client is gone; the end of stdin stops the session
            self._closed = True


def protocol_stdout() -> int:
    """A private copy of stdout for the protocol; fd 1 and ``sys.stdout`` then write to stderr. A pipe there is
    widened to ``PIPE_BYTES`` where the system allows it."""
    sys.stdout.flush()
    fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    with contextlib.suppress(OSError, AttributeError):  # not a pipe, a smaller limit, or not Linux
        import fcntl

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    return fd


async def read_lines(stream: object = None) -> AsyncIterator[str]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**24)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stream or sys.stdin)
    while line := await reader.readline():
        yield line.decode()


async def serve_stdio(options: EngineOptions) -> int:
    """Serves until the client leaves or a signal ends the engine; returns the exit code (128 + a signal's number
    after SIGINT, SIGTERM or SIGHUP: the running input was cancelled, its bash group killed, everything saved)."""
    writer = LineWriter(protocol_stdout())

    def idle_limit_s() -> float:
        orchestrator = session.host.orchestrator
        return 3600 * (orchestrator.config.agents.detached_idle_hours if orchestrator is not None else 24.0)

    # A client that leaves agents running (``Detach``): the engine then waits on a socket for ``coder-tui --attach``.
    detaching = DetachedServing(options.workspace, idle_limit_s, options.env)
    session = LineSession(options, writer, detaching=detaching)
    serving = asyncio.create_task(session.serve(read_lines()))
    signals = install_ending_signals(
        lambda: session.host.orchestrator, asyncio.get_running_loop(), on_signal=lambda _signum: serving.cancel()
    )
    try:
        with contextlib.suppress(asyncio.CancelledError):
            await serving
    finally:
        signals.remove()
        writer.flush()
    return signals.exit_code(0)
