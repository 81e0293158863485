"""What the libraries SPEC 1 names cost in memory before any of coder-tui's own code runs: the floor under "peak
memory (sum over every process) while streaming 20k tokens", printed beside that peak as coder-tui reaches it and
its target (issue 32: at most 130 MB; issue 14's 100 MB was below this floor).

Each step runs in a fresh interpreter and reports its peak resident size (VmHWM, as ``pty_latency`` sums it):

- the bare Textual app (Static + Input + Footer) drawn in a 120x40 pty, the same app ``pty_latency`` holds for scale;
- an interpreter with the standard modules an engine needs (asyncio, sqlite3, json);
- that, plus the ``openai`` SDK imported as the engine imports it and its client made;
- that, plus tiktoken's ``cl100k_base`` encoding loaded as the engine loads it (the peak is taken while it loads);
- the bare Textual app that first imports the SDK and loads the encoding (the order with the lowest peak: the
  encoding's transient load is over before Textual loads): the floor of a single-process design.

The two-process floor is the bare Textual app plus the engine-side floor, with the encoding (a count that must be
exact) and without it (the engine loads it only then, and uses the server's reported usage otherwise). Then the real
``coder-tui`` streams a 20k-token answer in a pty as ``pty_latency``'s session does (keys typed meanwhile), and its
peak over every process is printed beside the floors and the target.

Run: python benchmarks/memory_floor.py [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pty_driver import ROOT, Terminal, bench_env, compile_bytecode, python_argv  # noqa: E402
from pty_latency import BARE_APP, ScriptedServerProcess, run_session  # noqa: E402

TARGET_MB = 130.0
PEAK = "print(next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')) / 1024)"
STDLIB = "import asyncio, json, sqlite3\n"
SDK = (
    STDLIB + "from engine.provider.openai_provider import OpenAIProvider\n"
    "OpenAIProvider(base_url='https://api.openai.com/v1', api_key='sk-floor').warm()\n"
)
ENCODING = SDK + "from engine.context.tokens import load_encoding\nload_encoding('cl100k_base')\n"


def interpreter_peak(code: str) -> float:
    """The peak resident MB of a fresh interpreter that runs ``code`` (with the project importable)."""
    result = subprocess.run(
        python_argv("-c", code + PEAK), env=bench_env(), cwd=ROOT, capture_output=True, text=True, check=True
    )
    return float(result.stdout.strip().splitlines()[-1])


def app_peak(preload: str) -> float:
    """The peak resident MB of the bare Textual app, in a pty, once it has drawn (``preload`` runs at its import)."""
    with tempfile.TemporaryDirectory() as folder:
        term = Terminal(python_argv("-c", preload + BARE_APP), Path(folder), bench_env())
        try:
            term.start()
            term.wait_shown("for scale")
            term.pump(until=term.wait_shown("for scale") + 1.0)
            return term.peak_rss_mb()
        finally:
            term.close()


def coder_streaming_peak(seed: int) -> float:
    """The peak resident MB, summed over every process, of ``coder-tui`` streaming a 20k-token answer in a pty."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        server = ScriptedServerProcess(root / "arrivals.log")
        try:
            env = server.client_env(root / "home")
            workspace = root / "work"
            workspace.mkdir()
            return run_session(workspace, env, server, seed)["peak_rss"]
        finally:
            server.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    compile_bytecode()
    steps = {
        "bare Textual app, drawn in a pty": lambda: app_peak(""),
        "interpreter + asyncio, json, sqlite3": lambda: interpreter_peak(STDLIB),
        "  + openai SDK imported, client made": lambda: interpreter_peak(SDK),
        "  + tiktoken cl100k_base loaded (engine-side floor)": lambda: interpreter_peak(ENCODING),
        "SDK + encoding, then the bare Textual app, one process": lambda: app_peak(ENCODING),
    }
    figures = {label: statistics.median(measure() for _ in range(args.runs)) for label, measure in steps.items()}
    for label, value in figures.items():
        print(f"| {label} | {value:.1f} MB |")
    labels = list(steps)
    two = figures[labels[0]] + figures[labels[3]]
    two_without_encoding = figures[labels[0]] + figures[labels[2]]
    one = figures[labels[4]]
    peak = statistics.median(coder_streaming_peak(seed) for seed in range(args.runs))
    print(f"\nfloor, UI and engine processes, the encoding loaded (no coder-tui code): {two:.1f} MB")
    print(f"floor, UI and engine processes, without the encoding (no coder-tui code): {two_without_encoding:.1f} MB")
    print(f"floor, one process, the encoding loaded (no coder-tui code): {one:.1f} MB")
    verdict = "met" if peak <= TARGET_MB else "NOT met"
    print(f"coder-tui, peak while streaming 20k tokens, every process: {peak:.1f} MB "
          f"({peak - two_without_encoding:+.1f} MB over the floor without the encoding); "
          f"target <= {TARGET_MB:.0f} MB {verdict}")


if __name__ == "__main__":
    main()
