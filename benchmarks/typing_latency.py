"""Keystroke-to-screen latency while a 20k-token answer streams from the scripted server.

Two runs: a fresh session, and the same stream after ``/resume`` of a stored 5,000-message session (written with
the engine's Store, as ``resume.py`` does; typing cost must not grow with the session). Keys are sent from a
thread, as the terminal driver does, every 40 ms; a key's latency is the time until the first frame written to the
terminal that shows it. Prints p50 / p95 / max beside the target. No asserts: it measures.

    python benchmarks/typing_latency.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from textual import events
from textual.pilot import Pilot

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.resume import LAST_ANSWER, write_session  # noqa: E402
from coder_tui.app import CoderApp  # noqa: E402
from coder_tui.history import InputHistory  # noqa: E402
from tests.support.fakes import make_config  # noqa: E402
from tests.support.scenario import reply, slow, text  # noqa: E402
from tests.support.scripted_server import ScriptedServer  # noqa: E402

TARGET_P95_MS = 50.0
ANSWER_TOKENS = 20_000
KEY_INTERVAL_S = 0.04
# 16 characters (about 4 tokens) per chunk every 5 ms: about 800 tokens a second, a fast hosted model.
CHUNK_CHARS = 16
CHUNK_DELAY_S = 0.005
RESUMED_MESSAGES = 5000


def long_answer(tokens: int) -> str:
    """Markdown of about ``tokens`` tokens (~4 characters each): headings, prose, lists and code blocks."""
    sections = []
    index = 0
    while sum(len(part) for part in sections) < tokens * 4:
        index += 1
        sections.append(
            f"## Step {index}\n\nThe function `handle_{index}` reads the request, checks the **limits** and "
            f"writes the result back. It keeps state in a small cache so repeated calls stay cheap.\n\n"
            f"- validate the input of step {index}\n- update the counters\n- return the response\n\n"
            f"```python\ndef handle_{index}(request):\n    value = request.get('value', {index})\n"
            f"    if value < 0:\n        raise ValueError('negative')\n    return value * 2\n```\n\n"
        )
    return "".join(sections)


class MeasuredApp(CoderApp):
    """Records, for each key sent, when the first frame showing it reached the terminal."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.sent: list[tuple[int, float]] = []  # (prompt length once shown, send time)
        self.latencies: list[float] = []
        self.lock = threading.Lock()

    def _display(self, screen, renderable) -> None:  # type: ignore[no-untyped-def]
        super()._display(screen, renderable)
        if renderable is None:
            return
        now = time.perf_counter()
        length = len(self.session.prompt.input.text)
        with self.lock:
            while self.sent and self.sent[0][0] <= length:
                self.latencies.append((now - self.sent.pop(0)[1]) * 1000)


def type_keys(app: MeasuredApp, loop: asyncio.AbstractEventLoop, stop: threading.Event) -> None:
    """The driver's role: keys arrive from another thread whatever the event loop is doing."""
    typed = 0
    while not stop.wait(KEY_INTERVAL_S):
        typed += 1
        with app.lock:
            app.sent.append((typed, time.perf_counter()))
        loop.call_soon_threadsafe(app.post_message, events.Key("x", "x"))


async def measure(resumed_messages: int) -> tuple[list[float], float]:
    with tempfile.TemporaryDirectory() as folder, ScriptedServer() as server:
        workspace = Path(folder)
        server.add(slow(reply(text(long_answer(ANSWER_TOKENS), chunk=CHUNK_CHARS)), delay=CHUNK_DELAY_S))
        first_inputs = (f"/resume {write_session(workspace, resumed_messages)}",) if resumed_messages else ()
        app = MeasuredApp(
            workspace=workspace,
            # A window large enough for the resumed session: compaction is not what this measures.
            config=make_config(server.base_url, context_window=1_000_000),
            env={"OPENAI_API_KEY": "sk-bench"},
            workspace_label="~/bench",
            history=InputHistory(None),
            first_inputs=first_inputs,
        )
        async with app.run_test(size=(120, 40)) as pilot:
            await wait(pilot, lambda: app.link.orchestrator is not None)
            if resumed_messages:
                await wait(pilot, lambda: not app.link.busy and shows(app, LAST_ANSWER))
                await asyncio.sleep(0.5)  # the resumed screen settles before the clock starts
            app.session.prompt.input.set_text("explain every step")
            await pilot.press("enter")
            await wait(pilot, lambda: app.link.busy)
            started = time.perf_counter()
            stop = threading.Event()
            typist = threading.Thread(target=type_keys, args=(app, asyncio.get_running_loop(), stop), daemon=True)
            typist.start()
            await wait(pilot, lambda: not app.link.busy, limit=600)
            stop.set()
            typist.join()
            await asyncio.sleep(0.2)
            return app.latencies, time.perf_counter() - started


def shows(app: CoderApp, text: str) -> bool:
    return any(text in getattr(entry, "text", "") for entry in app.session.transcript.entries)


async def wait(pilot: Pilot[object], condition, limit: float = 30) -> None:  # type: ignore[no-untyped-def]
    """Polls with a plain sleep: ``pilot.pause`` walks every widget, which would load the loop being measured."""
    deadline = time.perf_counter() + limit
    while not condition():
        if time.perf_counter() > deadline:
            raise SystemExit("the benchmark stalled")
        await asyncio.sleep(0.02)


def report(name: str, latencies: list[float], duration: float) -> None:
    ordered = sorted(latencies)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    print(
        f"{name:<38} keys {len(ordered):4d}  p50 {statistics.median(ordered):6.1f} ms  p95 {p95:6.1f} ms  "
        f"max {ordered[-1]:6.1f} ms  (stream {duration:.1f} s)   target p95 < {TARGET_P95_MS:.0f} ms"
    )


def main() -> None:
    print(f"answer: ~{ANSWER_TOKENS} tokens ({len(long_answer(ANSWER_TOKENS)):,} characters) streamed at about "
          f"{CHUNK_CHARS / 4 / CHUNK_DELAY_S:.0f} tokens/s; one key every {KEY_INTERVAL_S * 1000:.0f} ms")
    latencies, duration = asyncio.run(measure(0))
    report("fresh session", latencies, duration)
    latencies, duration = asyncio.run(measure(RESUMED_MESSAGES))
    report(f"resumed {RESUMED_MESSAGES:,}-message session", latencies, duration)


if __name__ == "__main__":
    main()
