"""``coder-tui --attach``: the connection to an engine left running after its UI quit (SPEC 26), over the Unix socket
it waits on (``engine.server.rendezvous``, ``engine.server.detached``).

``attach_engine`` connects before the app starts, so a refusal (another UI attached, no engine running, a socket
that cannot be trusted) is said on the terminal and the command exits non-zero. It checks the socket's folder and
the socket itself (this user's, no access for others, no link), and that the process listening is this user's
(``SO_PEERCRED``), before it says a word: an attached UI answers the engine's approvals.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from engine.server import rendezvous
from engine.server.rendezvous import RendezvousError

if TYPE_CHECKING:
    import asyncio

    from coder_tui.link.engine_process import EngineProcess
    from engine.protocol import Attached

# How long the engine may take to say whether it takes this client.
HANDSHAKE_TIMEOUT_S = 10.0
# The greeting is one short line.
GREETING_MAX_BYTES = 1 << 16


class AttachError(Exception):
    """Why ``--attach`` cannot attach: said to the user as it is."""


def attach_engine(workspace: Path) -> AttachedEngine:
    """Connects to the engine that waits for a UI in ``workspace`` (``AttachError`` when there is none, another UI
    is attached, or its socket cannot be trusted)."""
    nothing = AttachError(f"no coder-tui engine was left running in {workspace}: nothing to attach to")
    try:
        found = rendezvous.rendezvous_for(workspace)
        if not os.path.lexists(found.socket):
            raise nothing
        rendezvous.check_folder(found.folder)
        rendezvous.check_socket(found.socket)
    except RendezvousError as exc:
        raise AttachError(f"not attaching: {exc}") from exc
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.settimeout(HANDSHAKE_TIMEOUT_S)
        try:
            connection.connect(str(found.socket))
        except (ConnectionRefusedError, FileNotFoundError):
            pid = rendezvous.read_pid(found)
            if pid is None or not rendezvous.alive(pid):  # an engine that was killed left them
                rendezvous.remove(found)
            raise nothing from None
        peer = rendezvous.peer_of(connection)
        if peer.uid != os.getuid():
            raise AttachError(f"not attaching: the process on {found.socket} (pid {peer.pid}) is user {peer.uid}'s")
        greeting = _greeting(connection)
        connection.setblocking(False)
    except BaseException:
        connection.close()
        raise
    return AttachedEngine(connection, greeting.pid, Path(greeting.workspace))


def _greeting(connection: socket.socket) -> Attached:
    """The engine's first line: ``Attached``, or ``AttachRefused`` (raised as ``AttachError``). Read a byte at a time:
    what follows it is the app's to read."""
    from engine.protocol import CODEC, Attached, AttachRefused, ProtocolError

    line = bytearray()
    try:
        while len(line) < GREETING_MAX_BYTES and (byte := connection.recv(1)) not in (b"", b"\n"):
            line += byte
        message = CODEC.loads(line.decode())
    except (OSError, UnicodeDecodeError, ProtocolError) as exc:
        raise AttachError(f"the engine did not answer as expected: {exc or 'it closed the connection'}") from exc
    match message:
        case Attached():
            return message  # type: ignore[no-any-return]
        case AttachRefused(message=text):
            raise AttachError(f"not attaching: {text}")
    raise AttachError(f"the engine did not answer as expected: {type(message).__name__}")


class AttachedEngine:
    """A client connection (``open`` / ``send_line`` / ``aclose`` / ``detach``) to a detached engine."""

    def __init__(self, connection: socket.socket, pid: int, workspace: Path) -> None:
        self._socket = connection
        self.pid = pid
        self.workspace = workspace
        self._transport: asyncio.Transport | None = None
        self._unsent: list[bytes] = []
        self._closing = False

    def open(self, on_line: Callable[[str], None], on_exit: Callable[[str], None]) -> None:
        import asyncio

        from coder_tui.link.engine_lines import LineProtocol

        loop = asyncio.get_running_loop()

        def ended() -> None:
            if not self._closing:
                on_exit(f"the connection to the engine (pid {self.pid}) closed")

        connecting = loop.create_task(
            loop.create_unix_connection(lambda: LineProtocol(on_line, ended), sock=self._socket)
        )

        def connected(done: asyncio.Task[tuple[asyncio.Transport, LineProtocol]]) -> None:
            if done.cancelled() or done.exception() is not None:
                ended()
                return
            self._transport = done.result()[0]
            for data in self._unsent:
                self._transport.write(data)
            self._unsent.clear()

        connecting.add_done_callback(connected)

    def send_line(self, line: str) -> None:
        data = line.encode() + b"\n"
        if self._transport is None:
            self._unsent.append(data)
        elif not self._transport.is_closing():
            self._transport.write(data)

    async def aclose(self) -> None:
        """Closes the connection once what was sent (``Shutdown``) is written."""
        self._closing = True
        if self._transport is not None:
            self._transport.close()
        else:
            with contextlib.suppress(OSError):
                self._socket.close()

    async def detach(self) -> None:
        """Leaves the engine running: the connection closes, and the engine waits for the next UI."""
        await self.aclose()


class AttachedEngines:
    """The engine starter of an attached app: the attached engine first; should it die, a new engine process on the
    workspace (the link resumes the main session in it, as after any crash)."""

    def __init__(self, attached: AttachedEngine) -> None:
        self._first: AttachedEngine | None = attached
        self._workspace = attached.workspace
        self.current: AttachedEngine | EngineProcess = attached

    def __call__(self) -> AttachedEngine | EngineProcess:
        from coder_tui.link.engine_process import EngineProcess

        first, self._first = self._first, None
        self.current = first or EngineProcess.spawn(workspace=self._workspace)
        return self.current
