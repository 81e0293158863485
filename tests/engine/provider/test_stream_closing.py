"""Issue 19 item 5: "async generator already executing" came from a stream abandoned mid-way. Closing the
provider's stream left the generators inside it (the SSE reader, the response's line iterator) suspended, for the
garbage collector to finalize later in a task of its own, racing whatever then ran. Closing the outer stream must
close every generator inside it, in the same task, at once."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

import engine.provider.openai_provider as openai_provider
from engine.provider.base import TextChunk
from tests.engine.provider.test_openai_provider import REQUEST, provider_for
from tests.support.scenario import stall, text
from tests.support.scripted_server import ScriptedServer


async def test_closing_a_stream_mid_way_closes_the_generators_inside_it(
    scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner: list[Any] = []
    real_read_stream = openai_provider.read_stream

    def recording_read_stream(lines: AsyncIterator[str], *args: Any) -> AsyncIterator[Any]:
        generator = real_read_stream(lines, *args)
        inner.extend([generator, lines])
        return generator

    monkeypatch.setattr(openai_provider, "read_stream", recording_read_stream)
    scripted_server.add(stall(after=text("first words"), seconds=30))
    provider = provider_for(scripted_server)
    stream = provider.stream(REQUEST)
    async for chunk in stream:
        if isinstance(chunk, TextChunk):
            break
    await stream.aclose()
    try:
        assert len(inner) == 2
        for generator in inner:
            assert generator.ag_frame is None, f"{generator!r} is still suspended"  # closed (3.11 has no getasyncgenstate)
        assert scripted_server.requests[-1].client_closed.wait(timeout=10)
    finally:
        await provider.aclose()
