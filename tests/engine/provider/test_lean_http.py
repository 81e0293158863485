"""The lean HTTP/1.1 transport the provider gives the SDK for ``http://`` servers (``engine.provider.lean_http``):
connections kept and replaced, every body framing, chunks split anywhere, a proxy from the environment still used."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest

from engine.errors import ProviderError
from engine.provider.base import ChatRequest, TextChunk
from engine.provider.openai_provider import OpenAIProvider
from engine.provider.sdk_import import import_openai
from tests.engine.provider.test_openai_provider import REQUEST, collect, provider_for, streamed_text
from tests.support.scenario import text
from tests.support.scripted_server import ScriptedServer

import_openai()
from engine.provider import lean_http  # noqa: E402 - imports the SDK, as the provider does when it needs the client

SSE_BODY = (
    b'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"hel"}}]}\n\n'
    b'data: {"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)


def chunked(body: bytes, size: int) -> bytes:
    pieces = [body[start : start + size] for start in range(0, len(body), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for piece in pieces) + b"0\r\n\r\n"


Answer = Callable[[int], list[bytes]]  # the request's number on its connection -> the writes of the answer


@asynccontextmanager
async def raw_server(answer: Answer, *, close_after: bool = False) -> AsyncIterator[tuple[str, list[int]]]:
    """A bare HTTP server: each request is answered with ``answer``'s writes; yields the base URL and the number
    of requests each connection carried."""
    per_connection: list[int] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        per_connection.append(0)
        index = len(per_connection) - 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    (int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")),
                    0,
                )
                await reader.readexactly(length)
                per_connection[index] += 1
                for write in answer(per_connection[index]):
                    writer.write(write)
                    await writer.drain()
                    await asyncio.sleep(0.001)
                if close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/v1", per_connection
    finally:
        server.close()


def sse_answer(body: bytes) -> Answer:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    return lambda _: [head, *(chunked(body, 7)[start : start + 5] for start in range(0, len(chunked(body, 7)), 5))]


def provider(base_url: str) -> OpenAIProvider:
    return OpenAIProvider(base_url=base_url, api_key="k", timeout=10, max_retries=0)


async def test_a_connection_is_kept_for_the_next_request() -> None:
    async with raw_server(sse_answer(SSE_BODY)) as (base_url, per_connection):
        client = provider(base_url)
        for _ in range(3):
            assert streamed_text(await collect(client)) == "hello"
        await client.aclose()

    assert per_connection == [3]


async def test_a_kept_connection_the_server_closed_is_replaced() -> None:
    async with raw_server(sse_answer(SSE_BODY), close_after=True) as (base_url, per_connection):
        client = provider(base_url)
        for _ in range(3):
            assert streamed_text(await collect(client)) == "hello"
            await asyncio.sleep(0.01)
        await client.aclose()

    assert per_connection == [1, 1, 1]


async def test_a_request_on_a_kept_connection_that_dies_unanswered_goes_once_more_on_a_new_one() -> None:
    answered = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n" % len(SSE_BODY)

    def answer(number: int) -> list[bytes]:
        if number == 2:
            raise ConnectionResetError  # the server drops the connection without a word
        return [answered + SSE_BODY]

    async with raw_server(answer) as (base_url, per_connection):
        client = provider(base_url)
        assert streamed_text(await collect(client)) == "hello"
        assert streamed_text(await collect(client)) == "hello"
        await client.aclose()

    assert per_connection == [2, 1]


@pytest.mark.parametrize(
    "head, body",
    [
        (b"Content-Length: %d\r\n" % len(SSE_BODY), SSE_BODY),
        (b"Connection: close\r\n", SSE_BODY),
        (b"Transfer-Encoding: chunked\r\n", chunked(SSE_BODY, 1)),
        (b"Transfer-Encoding: chunked\r\n", chunked(SSE_BODY, 4096)[:-5] + b"0;ext=1\r\nX-Trailer: 1\r\n\r\n"),
    ],
    ids=["content-length", "until-closed", "chunked-byte-by-byte", "chunked-with-trailers"],
)
async def test_every_body_framing_reads_the_whole_body(head: bytes, body: bytes) -> None:
    whole = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n" + head + b"\r\n" + body
    writes = [whole[start : start + 3] for start in range(0, len(whole), 3)]
    async with raw_server(lambda _: writes, close_after=b"close" in head) as (base_url, _):
        client = provider(base_url)
        assert streamed_text(await collect(client)) == "hello"
        await client.aclose()


async def test_informational_answers_before_the_real_one_are_skipped() -> None:
    whole = (
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(SSE_BODY), SSE_BODY)
    )
    async with raw_server(lambda _: [whole]) as (base_url, _):
        client = provider(base_url)
        assert streamed_text(await collect(client)) == "hello"
        await client.aclose()


async def test_a_chunked_body_cut_short_is_a_broken_stream() -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    async with raw_server(lambda _: [head, chunked(SSE_BODY, 40)[:-40]], close_after=True) as (base_url, _):
        client = provider(base_url)
        received = []
        with pytest.raises(ProviderError, match=r"^the stream ended early: peer closed connection"):
            async for chunk in client.stream(REQUEST):
                received.append(chunk)
        await client.aclose()
    assert any(isinstance(chunk, TextChunk) for chunk in received)


def test_chunks_split_anywhere_decode_to_the_same_data() -> None:
    wire = chunked(SSE_BODY, 13)
    for cut in range(1, len(wire)):
        connection = lean_http._Connection()
        data, ended = b"", False
        for piece in (wire[:cut], wire[cut:]):
            connection.buffer += piece
            parts, ended = lean_http._whole_chunks(connection)
            data += b"".join(parts)
        assert (data, ended, bytes(connection.buffer)) == (SSE_BODY, True, b""), cut


async def test_a_proxy_set_in_the_environment_still_carries_http_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    with ScriptedServer() as proxy:  # it answers the proxied request with a 404, having recorded it
        monkeypatch.setenv("HTTP_PROXY", proxy.base_url.removesuffix("/v1"))
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        client = OpenAIProvider(base_url="http://model.invalid/v1", api_key="k", timeout=10, max_retries=0)
        request = ChatRequest(model="m", messages=REQUEST.messages, tools=[])

        with pytest.raises(ProviderError, match=r"^not found \(404\)"):
            await collect(client, request)
        await client.aclose()

    assert [request.path for request in proxy.requests] == ["http://model.invalid/v1/chat/completions"]


async def test_the_server_still_sees_every_header_the_sdk_sends(scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("ok"))
    client = provider_for(scripted_server)

    assert streamed_text(await collect(client)) == "ok"
    await client.aclose()

    headers = scripted_server.requests[0].headers
    assert headers["authorization"] == "Bearer sk-test"
    assert headers["host"] == scripted_server.base_url.split("/")[2]
    assert headers["content-type"] == "application/json"
    assert int(headers["content-length"]) > 0
