"""What reading the 20k-token answer costs the engine process before the engine does anything with it (issue 46).

The answer of ``pty_latency.py`` / ``ab_stream.py`` (``bench_scenario.py``: 16 characters an event, an event a
millisecond) streamed from the scripted server in its own process, read in this process three ways, each on its
own and timed by this process's CPU clock:

- **the SDK**: the ``openai`` SDK's raw response, every piece its HTTP stack (httpx, httpcore, h11, anyio) yields,
  untouched: what any client of the SDK pays, the floor of the engine's part of the stream;
- **the provider**: ``OpenAIProvider.stream``, the engine's reader on top (SSE lines, one ``json.loads`` an event): what the engine's model link adds;
- the engine process's whole figure is in ``ab_stream.py --threads`` (``engine pid ...``): the rest of it is the turn
  (events, loop detection) and the pipe to the UI.

    python benchmarks/sdk_stream_floor.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.scripted_server_process import ScriptedServerProcess  # noqa: E402

REQUEST = "STREAM a long answer please"


async def sdk_alone(base_url: str) -> tuple[float, int]:
    """CPU seconds and pieces: the SDK's raw stream, read and dropped."""
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=base_url, api_key="sk-bench")
    started = time.process_time()
    pieces = 0
    async with client.chat.completions.with_streaming_response.create(
        model="scripted-model", messages=[{"role": "user", "content": REQUEST}], stream=True
    ) as response:
        async for _piece in response.http_response.aiter_bytes():
            pieces += 1
    spent = time.process_time() - started
    await client.close()
    return spent, pieces


async def provider(base_url: str) -> tuple[float, int]:
    """CPU seconds and chunks: the engine's provider reading the same answer."""
    from engine.provider.base import ChatRequest
    from engine.provider.openai_provider import OpenAIProvider

    link = OpenAIProvider(base_url=base_url, api_key="sk-bench")
    request = ChatRequest(model="scripted-model", messages=[{"role": "user", "content": REQUEST}], tools=[])
    started = time.process_time()
    chunks = 0
    async for _chunk in link.stream(request):
        chunks += 1
    return time.process_time() - started, chunks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server = ScriptedServerProcess(Path(folder) / "arrivals.log")
        base_url = server.base_url
        try:
            figures: dict[str, list[float]] = {"sdk": [], "provider": []}
            counts: dict[str, int] = {}
            asyncio.run(sdk_alone(base_url))  # warm-up: imports, connection
            for _ in range(args.runs):
                for name, read in (("sdk", sdk_alone), ("provider", provider)):
                    spent, count = asyncio.run(read(base_url))
                    figures[name].append(spent)
                    counts[name] = count
        finally:
            server.close()
    print(f"median of {args.runs} runs, CPU of this process while the 20k-token answer streams in")
    print("| reader | CPU | pieces |\n| --- | --- | --- |")
    print(f"| the openai SDK's HTTP stack alone (the floor) | {statistics.median(figures['sdk']):.2f} s | "
          f"{counts['sdk']:,} pieces |")
    print(f"| the engine's provider (SSE, JSON) | {statistics.median(figures['provider']):.2f} s | "
          f"{counts['provider']:,} chunks |")


if __name__ == "__main__":
    main()
