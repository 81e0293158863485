"""The two halves of a headless tool call's client time, each alone and in-process, as CPU time (steadier than
``engine_overhead.py``'s whole-process figures on a loaded machine, so an A/B of a change to one half shows):

- provider: ``OpenAIProvider.stream`` of one request (the real SDK over HTTP to the scripted server in its own
  process), its answer a tool call, the history growing by a tool call and its result each request, the
  engine's own tool definitions sent;
- engine: a turn of tool calls through the orchestrator (tool chain, storage, session file, token counts, events)
  with ``FakeToolCallingProvider``, which answers at once without HTTP.

Run: python benchmarks/engine_parts.py [--calls 200] [--runs 5] [--file-lines 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.engine_overhead import server_process  # noqa: E402
from engine.config import Config  # noqa: E402
from engine.messages import FunctionCall, Message, ToolCall  # noqa: E402
from engine.modes import Mode  # noqa: E402
from engine.orchestrator.orchestrator import Orchestrator  # noqa: E402
from engine.provider.base import ChatRequest  # noqa: E402
from engine.provider.openai_provider import OpenAIProvider  # noqa: E402
from tests.support.fakes import FakeInteraction, FakeToolCallingProvider  # noqa: E402

WARM_UP = 5  # requests not timed: the connection, the first encodings


def source_file(lines: int) -> str:
    if lines == 1:
        return "one line\n"
    return "".join(f"    total = total + values[{n}]  # line {n}\n" for n in range(lines))


def orchestrator(workspace: Path, calls: int, lines: int, provider: object) -> Orchestrator:
    (workspace / "small.txt").write_text(source_file(lines))
    config = Config.model_validate(
        {"model": "bench", "max_steps": calls + 5, "context_window": 1_000_000_000,
         "provider": {"base_url": "http://127.0.0.1:9/v1"}}
    )
    return Orchestrator(
        workspace=workspace, config=config, interaction=FakeInteraction(), interactive=False,
        mode=Mode.parse("yolo"), provider=provider, env={"OPENAI_API_KEY": "bench"},
    )


async def engine_part(calls: int, lines: int) -> float:
    """CPU ms per tool call of the orchestrator alone."""
    with tempfile.TemporaryDirectory() as folder:
        orch = orchestrator(Path(folder), calls, lines, FakeToolCallingProvider("read", {"path": "small.txt"}, calls))
        orch.token_counter.load()
        started = time.process_time()
        outcome = await orch.run_input("read small.txt many times")
        spent = time.process_time() - started
        await orch.aclose()
    if not outcome.ok:
        raise SystemExit(f"the turn failed: {outcome}")
    return spent / calls * 1000


async def provider_part(base_url: str, calls: int, lines: int, tools: list[dict[str, object]]) -> float:
    """CPU ms per request of the provider alone, the answer read to its end."""
    provider = OpenAIProvider(base_url=base_url, api_key="bench")
    provider.warm()
    result = json.dumps({"ok": True, "content": source_file(lines)})
    wire = [Message.user("read small.txt many times").to_wire()]
    spent = 0.0
    for number in range(calls + 1):
        started = time.process_time()
        async for _ in provider.stream(ChatRequest("bench", wire, tools)):
            pass
        if number >= WARM_UP:
            spent += time.process_time() - started
        call = ToolCall(id=f"call_{number}", function=FunctionCall(name="read", arguments='{"path": "small.txt"}'))
        wire = [*wire, Message.assistant(None, [call]).to_wire(), Message.tool(call.id, "read", result).to_wire()]
    await provider.aclose()
    return spent / (calls + 1 - WARM_UP) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--file-lines", type=int, default=1, help="lines of the file read (500: a 20 KB result)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        tools = orchestrator(Path(folder), 1, 1, FakeToolCallingProvider("read", {}, 0)).registry.wire()
    engine, provider = [], []
    for number in range(1, args.runs + 1):
        engine.append(asyncio.run(engine_part(args.calls, args.file_lines)))
        with tempfile.TemporaryDirectory() as folder, server_process(args.calls, Path(folder), args.file_lines) as url:
            provider.append(asyncio.run(provider_part(url, args.calls, args.file_lines, tools)))
        print(f"run {number}: engine {engine[-1]:.3f} ms, provider {provider[-1]:.3f} ms CPU per call; "
              f"load average {os.getloadavg()[0]:.2f}", flush=True)
    print(f"CPU per tool call (median of {args.runs}): engine {statistics.median(engine):.3f} ms, "
          f"provider {statistics.median(provider):.3f} ms")


if __name__ == "__main__":
    main()
