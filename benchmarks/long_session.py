"""A long day in one session, measured on the real ``coder-tui`` in a 120x40 pty with real keystrokes (issue 32).

One session, ``--exchanges`` short exchanges one after another (default 200, and 1,000 with ``--long``): each is a
request typed key by key at a user's pace and Enter, answered by the scripted server (its own process,
``long_session_scenario.py``) with a short Markdown paragraph; with ``--tools`` each exchange also runs a ``read``
tool call. For each exchange: the time from Enter until its answer's last word is on screen.

Printed, each beside its target: time per exchange over the first 10 and the last 10, and over exchanges 10-19
(growth at most 1.2x from exchange 10 to the end; the first ten are drawn on a screen not full yet, where a new line
redraws only itself, while once the transcript scrolls each new line moves, and redraws, the whole pane), and with
100 exchanges or more over exchanges 10-59 against the last 50 (the machine's speed drifts in phases of tens of
seconds, and a window of ten lands on whichever phase it meets), key
latency p95 / max in a 3 s window of typing at the end, and memory summed over every process the app started (the
engine process included) when fresh, after 200 and after 1,000 exchanges (at most +20 MB from exchange 10 to the
end).

Then, as a control for the machine's drift (its speed wanders by a third in phases of tens of seconds, which a window
of ten meets by chance), a fresh session at once, on the machine as it is then: the long session's last ten against
its exchanges 10-19 (its screen full, as at the long session's end) is the growth due to the session alone. It is
printed beside the issue's figures, not instead of them.

    python benchmarks/long_session.py [--exchanges 200] [--long] [--tools] [--runs 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.pty_driver import (  # noqa: E402
    ANCHOR,
    ENTER,
    ROOT,
    Terminal,
    compile_bytecode,
    now,
    percentile,
    _status_kb,
    process_tree,
    python_argv,
)
from benchmarks.pty_latency import ScriptedServerProcess, clear_prompt, type_window  # noqa: E402

SCENARIO = ROOT / "benchmarks" / "long_session_scenario.py"
# A user's pace between keys of a request. Enter follows the request's echo, and the next request's first key
# follows the answer: no pause (the app gets no idle moment it would not get from a quick typist).
TYPING_INTERVAL_S = 0.01
TIME_GROWTH_TARGET = 1.2
MEMORY_GROWTH_TARGET_MB = 20.0
CHECKPOINTS = (50, 100, 200, 500, 1000)
# The fresh session run right after the long one, as a control for the machine's drift.
CONTROL_EXCHANGES = 20


def rss_mb(term: Terminal) -> float:
    """Resident memory now (VmRSS), summed over the app and every process it started."""
    return sum(rss_by_process(term).values())


def rss_by_process(term: Terminal) -> dict[int, float]:
    assert term.process is not None
    return {pid: _status_kb(pid, "VmRSS") / 1024 for pid in process_tree(term.process.pid)}


def start_session(server: ScriptedServerProcess) -> Terminal:
    """A fresh ``coder-tui`` in its own workspace and home, ready for the first request."""
    workspace = Path(tempfile.mkdtemp(prefix="coder-long-"))
    (workspace / "notes.txt").write_text("the limit is 10\n")
    env = server.client_env(workspace / ".home")
    term = Terminal(python_argv("-m", "coder_tui", "--cwd", str(workspace), "--mode", "yolo"), workspace, env)
    term.start()
    term.type(ANCHOR)
    term.wait_shown(ANCHOR)
    clear_prompt(term)
    return term


def exchange(term: Terminal, index: int, tools: bool) -> float:
    """One request typed key by key, and Enter: the seconds until the output that put its answer's last word on
    screen arrived (not until this driver had parsed it: parsing a repainted screen takes it ~10 ms, which is the
    emulator's time, not the app's; ``pty_latency.py`` times its figures the same way)."""
    request = f"exchange {index}" + (" tool" if tools else "")
    for key in request:
        term.type(key)
        term.pump(until=now() + TYPING_INTERVAL_S)
    term.wait_shown(request)
    pressed = term.type(ENTER)
    return term.wait_shown(f"done{index}.", timeout=60) - pressed


def one_run(exchanges: int, tools: bool, verbose: bool = False) -> dict[str, float]:
    server = ScriptedServerProcess(Path(tempfile.mkdtemp()) / "arrivals.log", SCENARIO)
    figures: dict[str, float] = {}
    times: list[float] = []
    term: Terminal | None = None
    try:
        term = start_session(server)
        figures["rss_fresh"] = rss_mb(term)
        for index in range(1, exchanges + 1):
            times.append(exchange(term, index, tools))
            if index == 10:
                figures["rss_10"] = rss_mb(term)
                if verbose:
                    print("memory by process after 10 (MB):", {p: round(mb) for p, mb in rss_by_process(term).items()})
            if index in CHECKPOINTS:
                figures[f"rss_{index}"] = rss_mb(term)
                if verbose:
                    print(f"memory by process after {index} (MB):",
                          {pid: round(mb) for pid, mb in rss_by_process(term).items()}, flush=True)
        figures["rss_end"] = rss_mb(term)
        if verbose:
            print("memory by process at the end (MB):", {pid: round(mb) for pid, mb in rss_by_process(term).items()})
        term.type(ANCHOR)
        term.wait_shown(ANCHOR)
        keys = type_window(term, seed=exchanges)
        figures["keys_p95"] = percentile(keys, 0.95)
        figures["keys_max"] = max(keys)
        term.close()
        term = None
        # The control: a fresh session at once, on the machine as it is now. Its exchanges 10-19 (the screen full,
        # as at the long session's end) against the long session's last ten tell the session's growth apart from
        # the machine's drift over the minutes the long session took.
        term = start_session(server)
        control = [exchange(term, index, tools) for index in range(1, CONTROL_EXCHANGES + 1)]
        figures["control_from10_ms"] = statistics.median(control[9:19]) * 1000
    finally:
        if term is not None:
            term.close()
        server.process.kill()
        server.process.wait()
    if verbose:
        blocks = [statistics.median(times[i:i + 10]) * 1000 for i in range(0, len(times), 10)]
        print("time per exchange by ten (median, ms):", " ".join(f"{ms:.0f}" for ms in blocks))
        print("a fresh session right after, by ten (median, ms):",
              " ".join(f"{statistics.median(control[i:i + 10]) * 1000:.0f}" for i in range(0, len(control), 10)))
    figures["first10_ms"] = statistics.median(times[:10]) * 1000
    figures["from10_ms"] = statistics.median(times[9:19]) * 1000
    figures["last10_ms"] = statistics.median(times[-10:]) * 1000
    if len(times) >= 100:  # a window of ten lands on whichever phase of the machine's drift it meets
        figures["from10_50_ms"] = statistics.median(times[9:59]) * 1000
        figures["last50_ms"] = statistics.median(times[-50:]) * 1000
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--exchanges", type=int, default=200)
    parser.add_argument("--long", action="store_true", help="1,000 exchanges")
    parser.add_argument("--tools", action="store_true", help="a read tool call in every exchange")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--verbose", action="store_true",
                        help="memory by process at each checkpoint, and the time per exchange by tens")
    args = parser.parse_args()
    exchanges = 1000 if args.long else args.exchanges
    compile_bytecode()
    runs = [one_run(exchanges, args.tools, args.verbose) for _ in range(args.runs)]

    def median(key: str) -> float:
        values = [run[key] for run in runs if key in run]
        return statistics.median(values) if values else float("nan")

    growth = median("last10_ms") / median("first10_ms")
    growth_from_10 = median("last10_ms") / median("from10_ms")
    growth_fifty = median("last50_ms") / median("from10_50_ms")
    growth_control = median("last10_ms") / median("control_from10_ms")
    memory_growth = median("rss_end") - median("rss_10")
    print(f"coder-tui, {exchanges} exchanges{' with a tool call each' if args.tools else ''}, "
          f"median of {len(runs)} run(s)")
    rows = [
        ("time per exchange, first 10", f"{median('first10_ms'):.0f} ms", None),
        ("time per exchange, last 10", f"{median('last10_ms'):.0f} ms", None),
        ("growth, last 10 / first 10", f"{growth:.2f}x", (f"<= {TIME_GROWTH_TARGET}x", growth <= TIME_GROWTH_TARGET)),
        ("time per exchange, exchanges 10-19", f"{median('from10_ms'):.0f} ms", None),
        ("growth from exchange 10, last 10 / 10-19", f"{growth_from_10:.2f}x",
         (f"<= {TIME_GROWTH_TARGET}x", growth_from_10 <= TIME_GROWTH_TARGET)),
        *((("time per exchange, 10-59 -> last 50",
             f"{median('from10_50_ms'):.0f} -> {median('last50_ms'):.0f} ms", None),
            ("growth over fifty, last 50 / 10-59", f"{growth_fifty:.2f}x",
             (f"<= {TIME_GROWTH_TARGET}x", growth_fifty <= TIME_GROWTH_TARGET)))
          if exchanges >= 100 else ()),
        ("a fresh session right after, exchanges 10-19", f"{median('control_from10_ms'):.0f} ms", None),
        ("last 10 / a fresh session's 10-19 right after", f"{growth_control:.2f}x",
         (f"<= {TIME_GROWTH_TARGET}x", growth_control <= TIME_GROWTH_TARGET)),
        ("keys at the end: p95", f"{median('keys_p95'):.0f} ms", ("< 25 ms", median("keys_p95") < 25)),
        ("keys at the end: max", f"{median('keys_max'):.0f} ms", None),
        ("memory, fresh", f"{median('rss_fresh'):.0f} MB", ("<= 120 MB", median("rss_fresh") <= 120)),
        ("memory, after 10", f"{median('rss_10'):.0f} MB", None),
        *((f"memory, after {n}", f"{median(f'rss_{n}'):.0f} MB", None) for n in CHECKPOINTS if n <= exchanges),
        ("memory growth, exchange 10 -> end", f"{memory_growth:+.0f} MB",
         (f"<= +{MEMORY_GROWTH_TARGET_MB:.0f} MB", memory_growth <= MEMORY_GROWTH_TARGET_MB)),
    ]
    for name, value, target in rows:
        goal, verdict = ("-", "") if target is None else (target[0], "met" if target[1] else "NOT met")
        print(f"  {name:<48} {value:>10}   target {goal:<12} {verdict}")

if __name__ == "__main__":
    main()
