"""Client time per tool call in a 200-call headless turn (issue 14): the real ``coder-tui -p ... --mode yolo`` command
against the scripted server, each in its own process.

The server answers every request with one ``read`` tool call (200 of them, then a short text) and times itself:
each request from its request line to the last byte of its answer. The turn's wall time is the span from the
first request's arrival to the last answer's end, also on the server's clock, so the process start and the
imports before the first request are not counted. Client time = that span minus the server's time; everything
coder-tui does per call is in it: reading the stream, running the tool, saving the messages, the next request.

Each run also prints the median of the client's times between two requests. The mean (the figure the target is
for) also counts any stall inside the turn, which the median leaves out: a mean well above the median says the turn
stalled somewhere (this is how two were found: the token encoding's load, which plain-text headless runs no longer
do while the context is small, and SQLite checkpointing its log inside a commit every ~70 calls, which now waits for
the end of the input).

On a loaded machine wall time also counts the waits for a free core, so the script prints a second figure beside
it: the client process's CPU time per call (its user+system time in a 200-call run minus that of a 50-call run,
/ 150: start-up and the background loading both runs do cancel out), which load inflates far less. Each run also
prints the machine's load average (1 minute), to say how loaded it was.

The file read is one line by default, which leaves out what grows with a result's size (its encoding, redaction
and token count); ``--file-lines 500`` reads a 20 KB source file instead.

Run: python benchmarks/engine_overhead.py [--calls 200] [--runs 5] [--file-lines 1]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET_MS = 3.0

SCENARIO = """
from tests.support.scenario import reply, text, tool_call

# Each call differs (the limit), as a real session does: five identical calls in a row would be a loop. Every call
# reads the whole file (its limit is at least its length).
REPLIES = [reply(tool_call("read", path="small.txt", limit=n + {lines})) for n in range({calls})] + [text("done")]
"""


@dataclass(frozen=True)
class Run:
    process_s: float
    turn_s: float
    server_s: float
    requests: int
    cpu_s: float  # the coder-tui process's user + system time
    median_gap_s: float  # the median time from the end of an answer to the start of the next request

    @property
    def client_s(self) -> float:
        return self.turn_s - self.server_s


@contextmanager
def server_process(calls: int, folder: Path, lines: int) -> Iterator[str]:
    """The scripted server in a process of its own, so its work never competes with the client's for the GIL."""
    scenario = folder / "scenario.py"
    scenario.write_text(SCENARIO.format(calls=calls, lines=lines))
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.scripted_server", "--port", "0", "--scenario", str(scenario)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        yield process.stdout.readline().split()[3]
    finally:
        process.terminate()
        process.wait(timeout=10)


def coder_tui_command() -> list[str]:
    """The installed console script when it runs this checkout, else the same entry point through Python."""
    script = shutil.which("coder-tui")
    return [script] if script else [sys.executable, "-m", "coder_tui"]


def one_run(calls: int, lines: int = 1) -> Run:
    with tempfile.TemporaryDirectory() as folder, server_process(calls, Path(folder), lines) as base_url:
        workspace = Path(folder) / "workspace"
        (workspace / ".coder").mkdir(parents=True)
        config: dict[str, object] = {"max_steps": calls + 5}
        if lines == 1:
            (workspace / "small.txt").write_text("one line\n")
        else:
            source = "".join(f"    total = total + values[{n}]  # line {n}\n" for n in range(lines))
            (workspace / "small.txt").write_text(source)
            config["context_window"] = 1_000_000_000  # the history grows by the file each call: never compacted
        (workspace / ".coder" / "config.json").write_text(json.dumps(config))
        env = {
            **os.environ,
            "PYTHONPATH": str(REPO),
            "OPENAI_BASE_URL": base_url,
            "OPENAI_API_KEY": "bench",
            "CODER_MODEL": "bench",
        }
        started, cpu_before = time.perf_counter(), _children_cpu()
        finished = subprocess.run(
            [*coder_tui_command(), "-p", "read small.txt many times", "--mode", "yolo"],
            cwd=workspace, env=env, capture_output=True, text=True, timeout=600,
        )
        process_s, cpu_s = time.perf_counter() - started, _children_cpu() - cpu_before
        if finished.returncode != 0:
            raise SystemExit(f"coder-tui exited {finished.returncode}:\n{finished.stdout}\n{finished.stderr}")
        with urllib.request.urlopen(f"{base_url}/_scripted/stats", timeout=10) as answer:
            served = json.load(answer)["served"]
    if len(served) != calls + 1:
        raise SystemExit(f"expected {calls + 1} requests, the server saw {len(served)}")
    turn_s = served[-1][1] - served[0][0]
    server_s = sum(end - start for start, end in served)
    gaps = [after[0] - before[1] for before, after in zip(served, served[1:])]
    return Run(process_s, turn_s, server_s, len(served), cpu_s, statistics.median(gaps))


def _children_cpu() -> float:
    """User + system time of the waited-for children (the server is still running: only coder-tui counts)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--file-lines", type=int, default=1,
        help="lines of the file each call reads (default 1; e.g. 500 for a 20 KB source file, which costs what "
        "grows with a result's size: encoding, redaction, token counting)",
    )
    args = parser.parse_args()
    one_run(5)  # warm-up: the first start fills the OS's file cache and Python's bytecode cache
    per_call, cpu_per_call = [], []
    for number in range(1, args.runs + 1):
        baseline, run = one_run(args.calls // 4, args.file_lines), one_run(args.calls, args.file_lines)
        per_call.append(run.client_s / args.calls * 1000)
        cpu_per_call.append((run.cpu_s - baseline.cpu_s) / (args.calls - args.calls // 4) * 1000)
        print(
            f"run {number}: process {run.process_s * 1000:.0f} ms, turn {run.turn_s * 1000:.0f} ms "
            f"({run.requests} requests), server {run.server_s * 1000:.0f} ms, client {run.client_s * 1000:.0f} ms "
            f"= {per_call[-1]:.2f} ms per call (median {run.median_gap_s * 1000:.2f}); "
            f"client CPU {cpu_per_call[-1]:.2f} ms per call; "
            f"load average {os.getloadavg()[0]:.2f}",
            flush=True,
        )
    median = statistics.median(per_call)
    print(f"client CPU time per tool call: {statistics.median(cpu_per_call):.2f} ms (median of {args.runs} runs)")
    verdict = "meets" if median <= TARGET_MS else "MISSES"
    print(
        f"client time per tool call in a {args.calls}-call headless turn: {median:.2f} ms "
        f"(median of {args.runs} runs)   target: <= {TARGET_MS:g} ms   {verdict} the target"
    )


if __name__ == "__main__":
    main()
