"""Engine overhead per tool call (issue 2): a scripted 200-tool-call turn against the local scripted server.

The server runs in its own process. Engine time = the whole turn's wall time minus the time spent waiting on the provider stream (server + HTTP +
SDK) and minus the tools' own ``run`` time. What is left is the engine's own work per call: the tool chain (parse,
validate, policy, events), the session bookkeeping and the snapshot rewrite after every message.

Run: python benchmarks/engine_overhead.py [--calls 200]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from engine.config import Config  # noqa: E402
from engine.interaction import ApprovalDecision, ApprovalRequest, QuestionAnswer, QuestionRequest  # noqa: E402
from engine.modes import Mode  # noqa: E402
from engine.orchestrator import Orchestrator  # noqa: E402
from engine.provider.base import ChatRequest, StreamChunk  # noqa: E402
from engine.provider.factory import make_provider  # noqa: E402

TARGET_MS = 2.0


class Clock:
    def __init__(self) -> None:
        self.seconds = 0.0


class TimedProvider:
    """Counts the time spent waiting for the provider's next chunk (server, HTTP and SDK)."""

    def __init__(self, inner, clock: Clock) -> None:  # type: ignore[no-untyped-def]
        self.inner = inner
        self.clock = clock

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamChunk]:
        iterator = self.inner.stream(request).__aiter__()
        while True:
            started = time.perf_counter()
            try:
                chunk = await iterator.__anext__()
            except StopAsyncIteration:
                self.clock.seconds += time.perf_counter() - started
                return
            self.clock.seconds += time.perf_counter() - started
            yield chunk


class NoQuestions:
    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision.YES

    async def ask_question(self, request: QuestionRequest) -> QuestionAnswer:
        return QuestionAnswer(None)


SCENARIO = """
from tests.support.scenario import reply, text, tool_call

# Each call differs (the limit), as a real session does: five identical calls in a row would be a loop.
REPLIES = [reply(tool_call("read", path="small.txt", limit=n + 1)) for n in range({calls})] + [text("done")]
"""


@contextmanager
def server_process(calls: int, folder: Path) -> Iterator[str]:
    """The scripted server in a process of its own, so its work never competes with the engine's for the GIL."""
    scenario = folder / "scenario.py"
    scenario.write_text(SCENARIO.format(calls=calls))
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.scripted_server", "--port", "0", "--scenario", str(scenario)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first_line = process.stdout.readline()
        yield first_line.split()[3]
    finally:
        process.terminate()
        process.wait(timeout=10)


async def one_run(calls: int) -> tuple[float, float, float]:
    with tempfile.TemporaryDirectory() as folder, server_process(calls, Path(folder)) as base_url:
        workspace = Path(folder) / "workspace"
        workspace.mkdir()
        (workspace / "small.txt").write_text("one line\n")
        config = Config.model_validate({"model": "bench", "max_steps": calls + 5, "provider": {"base_url": base_url}})
        provider_clock, tool_clock = Clock(), Clock()
        provider = TimedProvider(make_provider(config, {"OPENAI_API_KEY": "bench"}), provider_clock)
        orchestrator = Orchestrator(
            workspace=workspace, config=config, interaction=NoQuestions(), provider=provider, mode=Mode.YOLO
        )
        read_tool = orchestrator.registry.get("read")
        original_run = read_tool.run

        async def timed_run(params, ctx):  # type: ignore[no-untyped-def]
            started = time.perf_counter()
            try:
                return await original_run(params, ctx)
            finally:
                tool_clock.seconds += time.perf_counter() - started

        read_tool.run = timed_run  # type: ignore[method-assign]
        started = time.perf_counter()
        outcome = await orchestrator.run_input("read small.txt many times")
        total = time.perf_counter() - started
        await orchestrator.aclose()
        assert outcome.ok, outcome
        return total, provider_clock.seconds, tool_clock.seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(one_run(5))  # warm-up: imports and first connections are not what is measured
    per_call = []
    for _ in range(args.runs):
        total, provider_s, tool_s = asyncio.run(one_run(args.calls))
        engine_s = total - provider_s - tool_s
        per_call.append(engine_s / args.calls * 1000)
        print(
            f"run: total {total * 1000:.0f} ms, provider wait {provider_s * 1000:.0f} ms, "
            f"tool work {tool_s * 1000:.0f} ms, engine {engine_s * 1000:.0f} ms"
        )
    median = statistics.median(per_call)
    print(f"engine time per tool call: {median:.3f} ms (median of {args.runs} runs)   target: < {TARGET_MS} ms")


if __name__ == "__main__":
    main()
