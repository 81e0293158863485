"""A detached engine (SPEC 26): its front end left with agents still running, and the engine keeps serving them,
waiting on a Unix socket (``engine.server.rendezvous``) for ``coder-tui --attach``.

One client at a time: another one is told who is attached and turned away. A client whose user is not the engine's
is closed without a word. A client that leaves without ``Shutdown`` (its terminal closed) leaves the engine detached
again; ``Shutdown`` ends it. Approvals asked meanwhile wait for the next client (``LineSession`` keeps them). When
nothing has happened in the engine and no client has been attached for the idle limit
(``agents.detached_idle_hours``), the engine ends: what waits for an answer then is cancelled, never approved.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import AsyncIterator, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from engine.protocol import CODEC, Attached, AttachRefused
from engine.server import rendezvous
from engine.server.rendezvous import Rendezvous, RendezvousError

if TYPE_CHECKING:
    from engine.server.lines import LineSession

log = logging.getLogger(__name__)

# The longest line a client may send (an answer to a form, a pasted request).
LINE_LIMIT = 1 << 24


class DetachedServing:
    """The socket a detached engine listens on, and the clients that attach through it."""

    def __init__(
        self, workspace: Path, idle_limit_s: Callable[[], float], env: Mapping[str, str] | None = None
    ) -> None:
        self._workspace = workspace
        self._idle_limit_s = idle_limit_s
        self._env = env
        self._rendezvous: Rendezvous | None = None
        self._server: asyncio.Server | None = None
        self._session: LineSession | None = None
        self._client_pid: int | None = None
        self._ended = asyncio.Event()

    async def open(self, session: LineSession) -> str:
        """Listens on the workspace's socket for clients of ``session`` (once; again: the same) and says so in the
        file beside it; returns the socket's path. ``RendezvousError`` (or ``OSError``) when the folder cannot be
        trusted or another live engine of this workspace listens there already."""
        if self._server is not None and self._rendezvous is not None:
            return str(self._rendezvous.socket)
        self._session = session
        found = rendezvous.rendezvous_for(self._workspace, self._env)
        rendezvous.make_folder(found)
        other = rendezvous.read_pid(found)
        if other is not None and other != os.getpid() and rendezvous.alive(other):
            raise RendezvousError(f"another engine (pid {other}) of {self._workspace} already waits for --attach")
        if os.path.lexists(found.socket):
            rendezvous.check_socket(found.socket)  # a stale one of ours is replaced; anything else is refused
            found.socket.unlink()
        self._server = await asyncio.start_unix_server(self._accepted, path=found.socket, limit=LINE_LIMIT)
        os.chmod(found.socket, 0o600)
        rendezvous.write_info(found, os.getpid(), self._workspace)
        self._rendezvous = found
        log.info("detached: waiting for coder-tui --attach on %s", found.socket)
        return str(found.socket)

    async def serve(self, session: LineSession) -> None:
        """Serves clients until one shuts the engine down, or it has been idle and alone for the idle limit."""
        idle = asyncio.create_task(self._watch_idle(session))
        try:
            await self._ended.wait()
        finally:
            idle.cancel()

    async def close(self) -> None:
        """Stops listening and removes the socket and its file."""
        if self._server is not None:
            self._server.close()
            self._server = None
        if self._rendezvous is not None:
            rendezvous.remove(self._rendezvous)
            self._rendezvous = None

    async def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            peer = rendezvous.peer_of(writer.get_extra_info("socket"))
            if peer.uid != os.getuid():
                log.warning("refused a client of user %d (pid %d) on the engine's socket", peer.uid, peer.pid)
                return
            session = self._session
            if self._client_pid is not None or session is None:
                writer.write(CODEC.dumps(AttachRefused(self._refusal())).encode() + b"\n")
                await writer.drain()
                return
            self._client_pid = peer.pid
            try:
                ending = await session.attach(
                    _writer_of(writer), _lines_of(reader), Attached(os.getpid(), str(self._workspace))
                )
            finally:
                self._client_pid = None
            if ending == "shutdown":
                self._ended.set()
        except (OSError, ValueError) as exc:  # gone, or a line past the limit
            log.info("a client of the detached engine left: %s", exc)
        finally:
            writer.close()

    def _refusal(self) -> str:
        who = f"coder-tui (pid {self._client_pid})" if self._client_pid is not None else "another coder-tui"
        return f"{who} is attached to the engine (pid {os.getpid()}) of {self._workspace}: one at a time"

    async def _watch_idle(self, session: LineSession) -> None:
        limit = self._idle_limit_s()
        while True:
            quiet = time.monotonic() - session.last_activity
            if self._client_pid is None and quiet >= limit:
                log.info("detached and idle for %.0f s: the engine ends", quiet)
                self._ended.set()
                return
            await asyncio.sleep(max(limit - quiet, 0.05) if self._client_pid is None else min(limit, 60.0))


def _writer_of(writer: asyncio.StreamWriter) -> Callable[[str], None]:
    def write_line(line: str) -> None:
        if not writer.is_closing():
            writer.write(line.encode() + b"\n")

    return write_line


async def _lines_of(reader: asyncio.StreamReader) -> AsyncIterator[str]:
    with contextlib.suppress(ConnectionError):
        while line := await reader.readline():
            yield line.decode()
