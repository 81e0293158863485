"""What users feel, measured on the real ``coder-tui`` command in a 120x40 pty with real keystrokes (issue 14).

Each round runs a bare Textual app (Static + Input + Footer) for scale, then coder-tui three times against the
scripted server running in its own process (``bench_scenario.py``):

1. launch: keys typed at once; the first echo (the median of three launches, each alternated with bare Textual's);
   then a key every 40 ms for 3 s, each timed until the screen shows it;
2. session: a request typed at launch with Enter (until it reaches the server); a 20k-token Markdown answer
   streamed while a key is typed every 40 ms (latency while it streams, and the stall as it finishes); the peak
   memory of every process the app started (the engine process included), and the CPU they used from that
   request's Enter to 1.5 s after its end (``ab_stream.py`` sets it beside a given commit's); Esc during a stalled
   answer until the screen says "interrupted";
3. resume: ``--resume`` of a 5,000-message session until its last message is drawn, then 3 s of keys.

Prints the median of the rounds for every figure with its target. No asserts: it measures.

With ``--mcp`` each round also launches coder-tui with three MCP servers configured (``mcp_servers.py``) and a
second table sets its launch figures beside those without servers: they should be the same.

    python benchmarks/pty_latency.py --runs 5 [--mcp]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_scenario import END_MARKER, GREETING, THINKING  # noqa: E402
from benchmarks.pty_driver import (  # noqa: E402
    ANCHOR,
    ENTER,
    ESCAPE,
    HOME,
    KILL_LINE,
    Expectation,
    Terminal,
    compile_bytecode,
    letters_for,
    now,
    percentile,
    python_argv,
    typing_run,
)
from benchmarks.scripted_server_process import ScriptedServerProcess  # noqa: E402
from benchmarks.stored_session import LAST_ANSWER, write_session  # noqa: E402
from benchmarks.mcp_servers import write_user_config  # noqa: E402

KEY_INTERVAL_S = 0.04
WINDOW_S = 3.0
# Keys typed per line while an answer streams, before the line is cleared (so it never scrolls sideways).
LINE_KEYS = 40
# How long the last key of a line may take to show before the prompt is cleared anyway (then it counts as unseen).
LAST_KEY_WAIT_S = 5.0
# After the end of the answer is on screen, keys typed this long count towards the "finish" stall.
FINISH_WINDOW_S = 1.5
RESUMED_MESSAGES = 5000
# Each round launches bare Textual and coder-tui this many times more, alternated, for the first echo alone (the
# round's figure is the median of all its launches): one launch each swung 0.19-0.39 s with the machine's moment.
MORE_LAUNCHES = 2
# What the empty prompt shows.
PROMPT_PLACEHOLDER = "Ask, !run a command"

BARE_APP = """
from textual.app import App
from textual.widgets import Footer, Input, Static
class Bare(App):
    def compose(self):
        yield Static("A bare Textual app, for scale")
        yield Input()
        yield Footer()
Bare().run()
"""


@dataclass(frozen=True)
class Figure:
    key: str
    label: str
    unit: str
    target: str
    # (value, what it is compared with: bare Textual's figures here, the commit's in ab_stream.py) -> met
    meets: Callable[[float, Any], bool] | None = None


FIGURES = (
    Figure("first_echo", "first typed key echoed after launch", "s", "<= 1.25x bare",
           lambda value, bare: value <= 1.25 * bare.get("first_echo", math.nan)),
    Figure("request_to_server", "a request typed at launch + Enter: until it reaches the server", "s", "<= 0.8 s",
           lambda value, _: value <= 0.8),
    Figure("first3_p95", "key latency, first 3 s after the first echo: p95", "ms", "< 16 ms", lambda v, _: v < 16),
    Figure("first3_max", "key latency, first 3 s after the first echo: max", "ms", "< 50 ms", lambda v, _: v < 50),
    Figure("stream_p95", "key latency while a 20k-token answer streams: p95", "ms", "< 25 ms", lambda v, _: v < 25),
    Figure("stream_max", "key latency while a 20k-token answer streams: max", "ms", "< 60 ms", lambda v, _: v < 60),
    Figure("finish_stall", "stall when the long answer finishes (worst key)", "ms", "< 60 ms", lambda v, _: v < 60),
    Figure("resume_drawn", f"--resume of {RESUMED_MESSAGES:,} messages: last message drawn", "s", "<= 0.6 s",
           lambda v, _: v <= 0.6),
    Figure("resume_p95", "key latency, first 3 s after that resume: p95", "ms", "< 25 ms", lambda v, _: v < 25),
    Figure("resume_max", "key latency, first 3 s after that resume: max", "ms", "(none)"),
    Figure("esc_stopped", "Esc to stopped (the screen says interrupted)", "ms", "< 100 ms", lambda v, _: v < 100),
    Figure("peak_rss", "peak memory (sum over every process) while streaming 20k tokens", "MB", "<= 130 MB",
           lambda v, _: v <= 130),
    Figure("stream_cpu", "CPU of every process while streaming 20k tokens (Enter to the end + 1.5 s)", "s cpu",
           "(ab_stream.py: <= 0.9x 1156f55)"),
    Figure("stream_s", "the 20k-token answer: Enter until its end is on screen", "s", "(none)"),
)


def coder_argv(workspace: Path, *extra: str) -> list[str]:
    return python_argv("-m", "coder_tui", "--cwd", str(workspace), *extra)


def one_process_argv(workspace: Path) -> list[str]:
    """coder-tui with its engine in the UI's interpreter (``benchmarks/one_process.py``)."""
    return python_argv(str(Path(__file__).with_name("one_process.py")), "--cwd", str(workspace))


def latencies(expectations: list[Expectation]) -> list[float]:
    """Milliseconds per key (after ``settle``); a key never shown counts as the whole wait, a freeze."""
    return [e.latency_ms for e in expectations if e.latency_ms is not None]


def type_window(term: Terminal, seed: int, start: float | None = None) -> list[float]:
    """A key every 40 ms for 3 s after the anchor already on screen; each key's latency."""
    letters = letters_for(round(WINDOW_S / KEY_INTERVAL_S), seed)
    keys = list(letters)
    expected = [ANCHOR + letters[: index + 1] for index in range(len(letters))]
    measured = term.type_schedule(keys, expected, interval=KEY_INTERVAL_S, start=start)
    term.settle(measured)
    return latencies(measured)


SCENARIOS = ("launch", "session", "resume")


def launch(term: Terminal) -> float:
    """Starts the program with a key typed at once; the seconds until that key was shown."""
    started = term.start()
    term.type(ANCHOR)
    return term.wait_shown(ANCHOR) - started


def run_launch(argv: list[str], workspace: Path, env: dict[str, str], seed: int) -> dict[str, float]:
    term = Terminal(argv, workspace, env)
    try:
        echoed = launch(term)
        keys = type_window(term, seed)
        return {
            "first_echo": echoed,
            "first3_p95": percentile(keys, 0.95),
            "first3_max": max(keys),
            "peak_rss": term.peak_rss_mb(),
        }
    finally:
        term.close()


def first_echoes(bare: dict[str, float], coder: dict[str, float], workspace: Path, env: dict[str, str]) -> None:
    """``MORE_LAUNCHES`` more launches of each, alternated, each closed once its key is shown; each app's first echo
    becomes the median of its launches."""
    echoes: dict[str, list[float]] = {"bare": [bare["first_echo"]], "coder": [coder["first_echo"]]}
    for _ in range(MORE_LAUNCHES):
        for name, argv in (("bare", python_argv("-c", BARE_APP)), ("coder", coder_argv(workspace))):
            term = Terminal(argv, workspace, env)
            try:
                echoes[name].append(launch(term))
            finally:
                term.close()
    bare["first_echo"] = statistics.median(echoes["bare"])
    coder["first_echo"] = statistics.median(echoes["coder"])


def run_session(
    workspace: Path, env: dict[str, str], server: ScriptedServerProcess, seed: int, argv: list[str] | None = None,
    watch: Callable[[Terminal], AbstractContextManager[object]] | None = None,
) -> dict[str, float]:
    """The session scenario; ``watch(term)``, when given, is entered from the long request's Enter until the end of
    its finish window (a profiler attached to the app's processes, say)."""
    term = Terminal(argv or coder_argv(workspace), workspace, env)
    try:
        before = len(server.arrivals())
        started = term.start()
        term.type("say hello" + ENTER)
        term.wait_shown(GREETING)
        request_to_server = server.arrivals()[before] - started

        with watch(term) if watch is not None else nullcontext():
            cpu_before = term.cpu_seconds()
            bytes_before = term.bytes_out
            asked = term.type("STREAM a long answer please" + ENTER)
            term.wait_shown("handle_1")
            end = term.expect(END_MARKER, now())
            measured: list[Expectation] = []
            line = 0
            deadline = now() + 120
            while now() < deadline and (end.seen_at is None or now() < end.seen_at + FINISH_WINDOW_S):
                if line:
                    # The line's last key is seen before the prompt is cleared: typed together, the app may apply
                    # the key and the clearing in one frame, and a key whose text was never drawn would count as a
                    # freeze until the end of the stream (the keys "delayed by seconds" of earlier runs were these).
                    term.wait_seen(measured[-1], timeout=LAST_KEY_WAIT_S)
                    clear_prompt(term)
                letters = letters_for(LINE_KEYS, seed * 1000 + line)
                keys, expected = typing_run(letters, line + 1)
                measured += term.type_schedule(keys, expected, interval=KEY_INTERVAL_S)
                line += 1
            stream_cpu = term.cpu_seconds() - cpu_before
            stream_bytes = term.bytes_out - bytes_before
        term.settle(measured)
        ended = end.seen_at if end.seen_at is not None else math.inf
        streaming = latencies([e for e in measured if e.since < ended - 0.1])
        finishing = latencies([e for e in measured if ended - 0.1 <= e.since <= ended + FINISH_WINDOW_S])
        peak = term.peak_rss_mb()

        clear_prompt(term)
        term.type("STALL for a while" + ENTER)
        term.wait_shown(THINKING)
        time.sleep(0.3)
        pressed = term.type(ESCAPE)
        stopped = term.wait_shown("interrupted")
        return {
            "request_to_server": request_to_server,
            "stream_p95": percentile(streaming, 0.95),
            "stream_max": max(streaming, default=math.nan),
            "finish_stall": max(finishing, default=math.nan),
            "peak_rss": peak,
            "stream_cpu": stream_cpu,
            "stream_kb": stream_bytes / 1024,
            "stream_s": ended - asked,
            "esc_stopped": (stopped - pressed) * 1000,
        }
    finally:
        term.close()


def clear_prompt(term: Terminal) -> None:
    """Home, then kill to the end of the line; waits until the prompt is empty. (Both keys are bindings, which
    Textual runs from the app's queue: a key typed right after them can be inserted before they act. Home on an
    empty prompt scrolls the transcript to its top: call this only after typing into it.)"""
    term.type(HOME)
    term.pump(until=now() + KEY_INTERVAL_S)
    term.type(KILL_LINE)
    term.wait_shown(PROMPT_PLACEHOLDER)


def run_resume(workspace: Path, env: dict[str, str], session_id: str, seed: int) -> dict[str, float]:
    term = Terminal(coder_argv(workspace, "--resume", session_id), workspace, env)
    try:
        started = term.start()
        drawn = term.wait_shown(LAST_ANSWER)
        term.type(ANCHOR)
        term.wait_shown(ANCHOR)
        keys = type_window(term, seed)
        return {"resume_drawn": drawn - started, "resume_p95": percentile(keys, 0.95), "resume_max": max(keys)}
    finally:
        term.close()


def fmt(value: float, unit: str) -> str:
    if math.isnan(value):
        return "—"
    if unit == "s cpu":
        return f"{value:.2f} s"
    return f"{value:.2f} s" if unit == "s" else f"{value:.0f} {unit}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--mcp", action="store_true", help="also launch with three MCP servers configured")
    parser.add_argument(
        "--one-process", action="store_true",
        help="also run the session with the engine in the UI's interpreter (benchmarks/one_process.py), for comparison",
    )
    parser.add_argument(
        "--only", default=",".join(SCENARIOS), metavar="NAMES",
        help=f"comma-separated scenarios to run, of {', '.join(SCENARIOS)} (default: all; the table shows "
        "only their figures)",
    )
    args = parser.parse_args()
    chosen = set(args.only.split(","))
    if unknown := chosen - set(SCENARIOS):
        parser.error(f"--only: unknown scenario {', '.join(sorted(unknown))}; choose from {', '.join(SCENARIOS)}")
    compile_bytecode()
    bare_runs: list[dict[str, float]] = []
    coder_runs: list[dict[str, float]] = []
    mcp_runs: list[dict[str, float]] = []
    single_runs: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        server = ScriptedServerProcess(root / "arrivals.log")
        env = server.client_env(root / "home")
        mcp_home = root / "mcp-home"
        mcp_env = {**env, "HOME": str(mcp_home), "XDG_CONFIG_HOME": str(write_user_config(mcp_home, root))}
        resumed = root / "resumed"
        resumed.mkdir()
        session_id = write_session(resumed, RESUMED_MESSAGES)
        try:
            for run in range(args.runs + 1):  # the first round warms the file cache and .pyc files
                fresh = root / f"run{run}"
                fresh.mkdir()
                (fresh / "README.md").write_text("# demo\n")
                bare = run_launch(python_argv("-c", BARE_APP), fresh, env, seed=run)
                coder = run_launch(coder_argv(fresh), fresh, env, seed=run) if "launch" in chosen else {}
                if "launch" in chosen:
                    first_echoes(bare, coder, fresh, env)
                if "session" in chosen:
                    coder |= run_session(fresh, env, server, seed=run)
                if "resume" in chosen:
                    coder |= run_resume(resumed, env, session_id, seed=run)
                with_mcp = run_launch(coder_argv(fresh), fresh, mcp_env, seed=run) if args.mcp else {}
                single = {}
                if args.one_process:
                    (root / f"single{run}").mkdir()
                    single = run_session(root / f"single{run}", env, server, run, one_process_argv(root / f"single{run}"))
                if run:
                    single_runs.append(single)
                    bare_runs.append(bare)
                    coder_runs.append(coder)
                    mcp_runs.append(with_mcp)
                    print(f"round {run}: bare first_echo {bare['first_echo']:.3g}; "
                          + ", ".join(f"{k} {v:.3g}" for k, v in coder.items()), flush=True)
        finally:
            server.close()
    print_table(bare_runs, coder_runs)
    if args.mcp:
        print_mcp_table(coder_runs, mcp_runs)
    if args.one_process:
        print_one_process_table(coder_runs, single_runs)


def median_of(runs: list[dict[str, float]], key: str) -> float:
    values = [run[key] for run in runs if key in run and not math.isnan(run[key])]
    return statistics.median(values) if values else math.nan


def print_table(bare_runs: list[dict[str, float]], coder_runs: list[dict[str, float]]) -> None:
    bare = {key: median_of(bare_runs, key) for key in ("first_echo", "first3_p95", "first3_max", "peak_rss")}
    print(f"\nmedian of {len(coder_runs)} runs, 120x40 pty, a key every {KEY_INTERVAL_S * 1000:.0f} ms, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print("| figure | bare Textual | coder-tui | target | met |\n| --- | --- | --- | --- | --- |")
    for figure in FIGURES:
        value = median_of(coder_runs, figure.key)
        scale = bare.get(figure.key, math.nan) if figure.key != "peak_rss" else bare["peak_rss"]
        shown = fmt(value, figure.unit)
        if figure.key == "first_echo" and not math.isnan(scale) and not math.isnan(value):
            shown += f" ({value / scale:.2f}x)"
        met = "—" if figure.meets is None or math.isnan(value) else ("yes" if figure.meets(value, bare) else "no")
        print(f"| {figure.label} | {fmt(scale, figure.unit)} | {shown} | {figure.target} | {met} |")


def print_mcp_table(coder_runs: list[dict[str, float]], mcp_runs: list[dict[str, float]]) -> None:
    print("\n| launch figure | no MCP servers | 3 MCP servers |\n| --- | --- | --- |")
    for figure in FIGURES:
        if figure.key in ("first_echo", "first3_p95", "first3_max"):
            print(f"| {figure.label} | {fmt(median_of(coder_runs, figure.key), figure.unit)} | "
                  f"{fmt(median_of(mcp_runs, figure.key), figure.unit)} |")


def print_one_process_table(coder_runs: list[dict[str, float]], single_runs: list[dict[str, float]]) -> None:
    print("\n| session figure | coder-tui (engine process) | engine in the UI's process | target |\n| --- | --- | --- | --- |")
    for figure in FIGURES:
        if any(figure.key in run for run in single_runs):
            print(f"| {figure.label} | {fmt(median_of(coder_runs, figure.key), figure.unit)} | "
                  f"{fmt(median_of(single_runs, figure.key), figure.unit)} | {figure.target} |")


if __name__ == "__main__":
    main()
