"""A lean HTTP/1.1 transport for the SDK's HTTP client, used for plain ``http://`` model servers.

The SDK's HTTP client (``httpx``, or ``httpx2`` in recent versions) sends through ``httpcore``, which runs on
``anyio`` and parses with ``h11``: per request, about a thousand Python calls to send it and get the head back, and a
dozen layers per chunk of an event stream. Against a model on this machine or the local network (Ollama, vLLM,
llama.cpp, LM Studio) that was most of the client's time per tool call. This transport speaks HTTP/1.1 itself on an
``asyncio.Protocol``: one write per request, the head parsed once, and every chunk of a chunked body that has
arrived handed up in one piece. It is given to the SDK through its documented ``http_client`` option, so the SDK
still does everything else (auth, base URL, headers, timeouts, errors); this only moves bytes.

Only ``http://`` URLs go this way, and only when the environment sets no proxy for them (then the HTTP library's
own transports carry everything, as before); ``https://`` goes to the library's own transport, whose TLS handling
is not worth copying for a millisecond that a remote server's latency dwarfs.

Errors are the HTTP library's own (``ConnectError``, ``ReadTimeout``, ``RemoteProtocolError``...), raised from
their cause, so the SDK and the provider read them as before. A connection is kept for the next request when its
response was read to the end and neither side asked to close it; a kept connection the server closed meanwhile
is replaced, and a request it failed on before any byte of the answer is sent once more on a new one.
"""

from __future__ import annotations

import asyncio
import importlib
import re
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import openai

# The HTTP library the SDK is built on (its default client's base class says which).
_http: Any = importlib.import_module(openai.DefaultAsyncHttpxClient.__mro__[1].__module__.split(".")[0])

MAX_HEAD_BYTES = 65_536
# Reading pauses while this much has arrived and not been taken (a consumer slower than the server).
HIGH_WATER = 1 << 20
_HEAD_END = re.compile(rb"\r?\n\r?\n")
_NO_BODY_STATUS = frozenset({204, 304})


def lean_http_client(**kwargs: Any) -> Any:
    """The SDK's default async HTTP client, with ``http://`` requests sent by ``LeanTransport`` unless the
    environment sets a proxy for them (the library reads the same variables, with ``urllib``'s rules)."""
    proxies = urllib.request.getproxies()
    if "http" in proxies or "all" in proxies:
        return openai.DefaultAsyncHttpxClient(**kwargs)
    return openai.DefaultAsyncHttpxClient(mounts={"http://": LeanTransport()}, **kwargs)


class LeanTransport(_http.AsyncBaseTransport):  # type: ignore[misc]
    def __init__(self, max_idle: int = 8) -> None:
        self._idle: dict[tuple[str, int], list[_Connection]] = {}
        self._max_idle = max_idle

    async def handle_async_request(self, request: Any) -> Any:
        url = request.url
        timeouts = request.extensions.get("timeout") or {}
        origin = (url.host, url.port or 80)
        head = _request_head(request)
        body = await _request_body(request)
        while True:
            connection = self._take_idle(origin)
            reused = connection is not None
            if connection is None:
                connection = await _connect(origin, timeouts.get("connect"))
            try:
                connection.send(head, body)
                status, reason, version, headers = await connection.read_head(request, timeouts.get("read"))
            except _StaleConnection:
                connection.close()
                if reused:
                    continue  # the server had closed the kept connection: once more on a new one
                raise _http.RemoteProtocolError("Server disconnected without sending a response.") from None
            except BaseException:
                connection.close()
                raise
            break
        stream = _ResponseStream(self, origin, connection, request, status, version, headers, timeouts.get("read"))
        return _http.Response(
            status_code=status,
            headers=headers,
            stream=stream,
            extensions={"http_version": version, "reason_phrase": reason},
        )

    async def aclose(self) -> None:
        for connections in self._idle.values():
            for connection in connections:
                connection.close()
        self._idle.clear()

    def _take_idle(self, origin: tuple[str, int]) -> _Connection | None:
        connections = self._idle.get(origin)
        while connections:
            connection = connections.pop()
            if connection.usable:
                return connection
            connection.close()
        return None

    def keep(self, origin: tuple[str, int], connection: _Connection) -> None:
        connections = self._idle.setdefault(origin, [])
        if len(connections) < self._max_idle and connection.usable:
            connections.append(connection)
        else:
            connection.close()


class _StaleConnection(Exception):
    """The connection ended before any byte of the answer came."""


class _Connection(asyncio.Protocol):
    """One TCP connection: what arrives is buffered; a reader waits for more with ``wait``."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.ended = False  # the peer closed its side, or the connection was lost
        self.error: BaseException | None = None
        self._waiter: asyncio.Future[None] | None = None
        self._paused = False

    @property
    def usable(self) -> bool:
        return self.transport is not None and not self.ended and not self.buffer and not self.transport.is_closing()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > HIGH_WATER and self.transport is not None and not self._paused:
            self._paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.ended = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.ended = True
        self.error = exc
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def take(self, size: int | None = None) -> bytes:
        """Removes and returns the first ``size`` bytes buffered (all by default)."""
        if size is None or size >= len(self.buffer):
            data = bytes(self.buffer)
            self.buffer.clear()
        else:
            data = bytes(self.buffer[:size])
            del self.buffer[:size]
        self._consumed()
        return data

    def drop(self, size: int) -> None:
        """Removes the first ``size`` bytes buffered."""
        del self.buffer[:size]
        self._consumed()

    def _consumed(self) -> None:
        if self._paused and len(self.buffer) <= HIGH_WATER // 2 and self.transport is not None:
            self._paused = False
            self.transport.resume_reading()

    async def wait(self, timeout: float | None) -> None:
        """Until more arrives or the connection ends; the HTTP library's ``ReadTimeout`` after ``timeout``."""
        if self.ended:
            return
        if self._paused and self.transport is not None:
            self._paused = False
            self.transport.resume_reading()
        loop = asyncio.get_running_loop()
        self._waiter = waiter = loop.create_future()
        timer = None if timeout is None else loop.call_later(timeout, _expire, waiter)
        try:
            await waiter
        finally:
            self._waiter = None
            if timer is not None:
                timer.cancel()

    def send(self, head: bytes, body: bytes) -> None:
        if self.transport is None or self.ended or self.transport.is_closing():
            raise _StaleConnection
        self.transport.write(head + body if len(body) < 65_536 else head)
        if len(body) >= 65_536:
            self.transport.write(body)

    async def read_head(self, request: Any, timeout: float | None) -> tuple[int, bytes, bytes, list[Any]]:
        """The status, reason, HTTP version and headers of the final response (informational ones skipped)."""
        while True:
            found = _HEAD_END.search(self.buffer)
            while found is None:
                if len(self.buffer) > MAX_HEAD_BYTES:
                    raise _http.RemoteProtocolError("the response head is too long")
                if self.ended:
                    if not self.buffer:
                        raise _StaleConnection
                    raise _http.RemoteProtocolError("Server disconnected in the middle of the response head.")
                await _reading(self.wait(timeout))
                found = _HEAD_END.search(self.buffer)
            head = self.take(found.end())
            status, reason, version, headers = _parse_head(head)
            if 100 <= status < 200 and status != 101:
                continue
            return status, reason, version, headers

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()
        self.ended = True


def _expire(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_exception(_http.ReadTimeout("timed out waiting for the server"))


async def _reading(wait: Any) -> None:
    """Awaits a read; a reset connection is the HTTP library's ``ReadError``."""
    try:
        await wait
    except OSError as exc:
        raise _http.ReadError(str(exc) or type(exc).__name__) from exc


async def _connect(origin: tuple[str, int], timeout: float | None) -> _Connection:
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(timeout):
            _, connection = await loop.create_connection(_Connection, origin[0], origin[1])
    except TimeoutError as exc:
        raise _http.ConnectTimeout(f"timed out connecting to {origin[0]}:{origin[1]}") from exc
    except OSError as exc:
        raise _http.ConnectError(str(exc) or type(exc).__name__) from exc
    return connection


def _request_head(request: Any) -> bytes:
    url = request.url
    lines = [b"%s %s HTTP/1.1" % (request.method.encode("ascii"), url.raw_path)]
    lines += [b"%s: %s" % (name, value) for name, value in request.headers.raw]
    lines.append(b"\r\n")
    return b"\r\n".join(lines)


async def _request_body(request: Any) -> bytes:
    """The body to send; a streamed one of unknown length is sent chunked, as its headers say."""
    content = await request.aread()
    if request.headers.get("transfer-encoding", "").lower() == "chunked":
        return (b"%x\r\n%s\r\n" % (len(content), content) if content else b"") + b"0\r\n\r\n"
    return content  # type: ignore[no-any-return]


def _parse_head(head: bytes) -> tuple[int, bytes, bytes, list[tuple[bytes, bytes]]]:
    lines = head.rstrip(b"\r\n").split(b"\n")
    status_line = lines[0].rstrip(b"\r")
    version, _, rest = status_line.partition(b" ")
    code, _, reason = rest.partition(b" ")
    if not version.startswith(b"HTTP/") or not code.isdigit() or len(code) != 3:
        raise _http.RemoteProtocolError(f"not an HTTP response: {status_line[:80]!r}")
    headers = []
    for line in lines[1:]:
        name, colon, value = line.rstrip(b"\r").partition(b":")
        if not colon or not name or name != name.strip():
            raise _http.RemoteProtocolError(f"malformed response header: {line[:80]!r}")
        headers.append((name, value.strip()))
    return int(code), reason, version, headers


class _ResponseStream(_http.AsyncByteStream):  # type: ignore[misc]
    """The response body, decoded from its framing (length, chunked, or until the server closes); what has
    arrived is yielded in one piece. Read to its end on a connection that may stay open, the connection goes back
    to the transport; closed early, the connection is closed."""

    def __init__(
        self,
        transport: LeanTransport,
        origin: tuple[str, int],
        connection: _Connection,
        request: Any,
        status: int,
        version: bytes,
        headers: list[tuple[bytes, bytes]],
        timeout: float | None,
    ) -> None:
        self._transport, self._origin, self._connection, self._timeout = transport, origin, connection, timeout
        values: dict[bytes, bytes] = {}
        for name, value in headers:
            values[name.lower()] = value.lower()
        chunked = values.get(b"transfer-encoding", b"").rsplit(b",", 1)[-1].strip() == b"chunked"
        length = values.get(b"content-length")
        self._length: int | None = None
        if request.method == "HEAD" or status in _NO_BODY_STATUS:
            self._length = 0
        elif not chunked and length is not None:
            if not length.isdigit():
                raise _http.RemoteProtocolError(f"invalid Content-Length: {length!r}")
            self._length = int(length)
        self._chunked = chunked and self._length is None
        self._reusable = (
            version == b"HTTP/1.1"
            and b"close" not in values.get(b"connection", b"")
            and (self._chunked or self._length is not None)
        )
        self._done = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            if self._chunked:
                async for part in self._read_chunked():
                    yield part
            elif self._length is not None:
                async for part in self._read_length(self._length):
                    yield part
            else:
                async for part in self._read_until_closed():
                    yield part
            self._done = True
        finally:
            await self.aclose()

    async def _more(self) -> None:
        connection = self._connection
        if connection.ended:
            raise _http.RemoteProtocolError(
                "peer closed connection without sending complete message body"
            ) from connection.error
        await _reading(connection.wait(self._timeout))

    async def _read_length(self, remaining: int) -> AsyncIterator[bytes]:
        connection = self._connection
        while remaining:
            if not connection.buffer:
                await self._more()
                continue
            part = connection.take(remaining)
            remaining -= len(part)
            yield part

    async def _read_until_closed(self) -> AsyncIterator[bytes]:
        connection = self._connection
        while True:
            if connection.buffer:
                yield connection.take()
            elif connection.ended:
                return
            else:
                await _reading(connection.wait(self._timeout))

    async def _read_chunked(self) -> AsyncIterator[bytes]:
        connection = self._connection
        while True:
            parts, ended = _whole_chunks(connection)
            if parts:
                yield b"".join(parts)
            if ended:
                return
            await self._more()

    async def aclose(self) -> None:
        connection, self._connection = self._connection, None  # type: ignore[assignment]
        if connection is None:
            return
        if self._done and self._reusable:
            self._transport.keep(self._origin, connection)
            return
        connection.close()
        # The socket itself is closed by the event loop's next round: let it run, so the server sees the client
        # leave as soon as the stream is closed.
        await asyncio.sleep(0)


def _whole_chunks(connection: _Connection) -> tuple[list[bytes], bool]:
    """The data of every whole chunk buffered (taken off the buffer), and whether the last chunk was among them."""
    buffer, position, parts = connection.buffer, 0, []
    ended = False
    while True:
        line_end = buffer.find(b"\n", position)
        if line_end < 0:
            break
        size_text = bytes(buffer[position:line_end]).split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise _http.RemoteProtocolError(f"malformed chunk size: {size_text[:40]!r}") from None
        if size == 0:
            trailers_end = _HEAD_END.search(buffer, line_end - 1)
            if trailers_end is not None:
                position, ended = trailers_end.end(), True
            break
        end = line_end + 1 + size
        if len(buffer) < end + 2:
            break
        if buffer[end : end + 2] == b"\r\n":
            ending = 2
        elif buffer[end : end + 1] == b"\n":
            ending = 1
        else:
            raise _http.RemoteProtocolError("a chunk does not end where its size says")
        parts.append(bytes(buffer[line_end + 1 : end]))
        position = end + ending
    if position:
        connection.drop(position)
    return parts, ended
