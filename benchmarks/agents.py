"""Four agents at once, measured on the real ``coder-tui`` command in a 120x40 pty with real keystrokes (issue 42).

Each round starts the scripted server (``agents_scenario.py``) in its own process, a temporary git repository, and
coder-tui three times in it:

1. solo: the main session streams a ~5k-token answer alone while a key is typed every 40 ms; the peak memory of
   every process the app started (UI, engine process, their children) is the baseline;
2. four: ``/spawn`` four agents from the main view; their ~5k-token answers stream at once (the server holds them
   until the fourth is asked) while a key is typed every 40 ms in the main view; the peak memory over every process
   then; afterwards Enter in the agents pane (Ctrl+B) switches to each agent in turn, timed from the Enter to the
   pty output that shows that agent's text;
3. watch: three agents spawned, the first one's view opened (``/agents show``), the fourth spawned from there: the
   keys are typed in the view of an agent whose answer is drawn while the other three stream behind it.

Prints the median of the rounds for every figure beside its target. No asserts: it measures.

    python benchmarks/agents.py --runs 3
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.agents_scenario import AGENTS, RELEASED, SOLO, marker  # noqa: E402
from benchmarks.pty_driver import (  # noqa: E402
    ENTER,
    ROOT,
    Expectation,
    Terminal,
    compile_bytecode,
    letters_for,
    now,
    percentile,
    process_tree,
    typing_run,
)
from benchmarks.pty_latency import (  # noqa: E402
    KEY_INTERVAL_S,
    LAST_KEY_WAIT_S,
    LINE_KEYS,
    PROMPT_PLACEHOLDER,
    clear_prompt,
    coder_argv,
    latencies,
)
from benchmarks.scripted_server_process import ScriptedServerProcess  # noqa: E402

NAMES = ("north", "south", "east", "west")[:AGENTS]
CTRL_B, DOWN = "\x02", "\x1b[B"
ALL_DONE = f"agents 0/{AGENTS}"
# What the open agents pane shows in its title.
PANE_OPEN = f"{AGENTS} in all"
# Time given to the app to act on the keys that open the pane and move in it, before the measured Enter.
PANE_SETTLE_S = 0.3
GIT_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/nonexistent", "LC_ALL": "C"}


@dataclass(frozen=True)
class Figure:
    key: str
    label: str
    unit: str
    target: str
    meets: Callable[[float], bool] | None = None


FIGURES = (
    Figure("solo_p95", "keys while the main session streams 5k tokens alone: p95", "ms", "(scale)"),
    Figure("solo_max", "keys while the main session streams 5k tokens alone: max", "ms", "(scale)"),
    Figure("four_p95", "keys in the main view while 4 agents stream 5k tokens each: p95", "ms", "< 16 ms",
           lambda v: v < 16),
    Figure("four_max", "keys in the main view while 4 agents stream 5k tokens each: max", "ms", "< 50 ms",
           lambda v: v < 50),
    Figure("watch_p95", "keys in an agent's view (its answer drawn) while 4 stream: p95", "ms", "< 16 ms",
           lambda v: v < 16),
    Figure("watch_max", "keys in an agent's view (its answer drawn) while 4 stream: max", "ms", "< 50 ms",
           lambda v: v < 50),
    Figure("solo_rss", "peak memory, every process: one session streaming alone", "MB", "(baseline)"),
    Figure("four_rss", "peak memory, every process: 4 agents streaming", "MB", "(none)"),
    Figure("per_agent_rss", "memory per running agent: (4 agents - solo) / 4", "MB", "<= 25 MB",
           lambda v: v <= 25),
    Figure("watch_rss", "peak memory, every process: 4 agents streaming, one in view (its answer drawn)", "MB",
           "(none)"),
    Figure("per_agent_watch_rss", "memory per running agent, one in view: (watch - solo) / 4", "MB", "<= 25 MB",
           lambda v: v <= 25),
    Figure("solo_engine_rss", "peak memory of the engine process: one session streaming alone", "MB", "(baseline)"),
    Figure("per_agent_engine_rss", "engine process only, per running agent: (4 agents - solo) / 4", "MB",
           "<= 25 MB", lambda v: v <= 25),
    Figure("switch_median", "switch view (Enter in the pane) to the agent's text on screen: median", "ms",
           "< 50 ms", lambda v: v < 50),
    Figure("switch_max", "switch view (Enter in the pane) to the agent's text on screen: max", "ms", "< 50 ms",
           lambda v: v < 50),
    Figure("switch_cpu", "CPU of every process of the app for one switch (Enter until the screen is still): median",
           "ms", "(none)"),
    Figure("four_stream_s", "the 4 answers: release until the status line says all done", "s", "(none)"),
)


def make_repo(root: Path) -> None:
    root.mkdir()
    (root / "README.md").write_text("# demo\n")
    identity = ("-c", "user.name=Bench", "-c", "user.email=bench@example.invalid")
    for args in (("init", "--quiet", "-b", "main"), ("add", "-A"), ("commit", "--quiet", "-m", "start")):
        subprocess.run(["git", *identity, *args], cwd=root, env=GIT_ENV, check=True, capture_output=True)


def engine_peak_mb(term: Terminal) -> float:
    """The peak resident memory of every process under the UI's (the engine process and its children)."""
    assert term.process is not None
    return sum(_peak_kb(pid) for pid in process_tree(term.process.pid)[1:]) / 1024


def _peak_kb(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")), 0)


def released_at(server: ScriptedServerProcess, after: int) -> float:
    """When the agents' answers started (the server's log), waiting for it up to 60 s."""
    deadline = now() + 60
    while now() < deadline:
        lines = server.log.read_text().splitlines() if server.log.exists() else []
        for line in lines[after:]:
            if line.endswith(" " + RELEASED):
                return float(line.split(" ", 1)[0])
        time.sleep(0.01)  # the reader thread keeps stamping the pty's output meanwhile
    raise TimeoutError("the agents' answers never started")


def log_length(server: ScriptedServerProcess) -> int:
    return len(server.log.read_text().splitlines()) if server.log.exists() else 0


def type_until(term: Terminal, end: Expectation, seed: int, timeout: float = 120) -> list[Expectation]:
    """Lines of keys, a key every 40 ms, until ``end`` is on screen; the keys' expectations (settled)."""
    measured: list[Expectation] = []
    line = 0
    deadline = now() + timeout
    while now() < deadline and end.seen_at is None:
        if line:
            term.wait_seen(measured[-1], timeout=LAST_KEY_WAIT_S)
            clear_prompt(term)
        keys, expected = typing_run(letters_for(LINE_KEYS, seed * 1000 + line), line + 1)
        measured += term.type_schedule(keys, expected, interval=KEY_INTERVAL_S)
        line += 1
    term.settle(measured)
    if end.seen_at is None:
        term.wait_seen(end, timeout=30)
    return measured


def during(measured: list[Expectation], start: float, end: float | None) -> list[float]:
    stop = math.inf if end is None else end
    return latencies([e for e in measured if start <= e.since < stop])


def spawn(term: Terminal, name: str) -> None:
    term.type(f"/spawn --name {name} AGENTSTREAM {name}" + ENTER)
    term.wait_shown(f"agent {name} started")


def run_solo(workspace: Path, env: dict[str, str], seed: int) -> dict[str, float]:
    term = Terminal(coder_argv(workspace), workspace, env)
    try:
        term.start()
        term.wait_shown(PROMPT_PLACEHOLDER)
        asked = term.type("SOLOSTREAM a long answer please" + ENTER)
        term.wait_shown(f"{marker(SOLO)} step 1")
        end = term.expect(f"That is all from {marker(SOLO)}", now())
        keys = during(type_until(term, end, seed), asked, end.seen_at)
        return {"solo_p95": percentile(keys, 0.95), "solo_max": max(keys, default=math.nan),
                "solo_rss": term.peak_rss_mb(), "solo_engine_rss": engine_peak_mb(term)}
    finally:
        term.close()


def run_four(workspace: Path, env: dict[str, str], server: ScriptedServerProcess, seed: int) -> dict[str, float]:
    term = Terminal(coder_argv(workspace), workspace, env)
    try:
        term.start()
        term.wait_shown(PROMPT_PLACEHOLDER)
        before = log_length(server)
        for name in NAMES:
            spawn(term, name)
        end = term.expect(ALL_DONE, now())
        measured = type_until(term, end, seed)
        start = released_at(server, before)
        keys = during(measured, start, end.seen_at)
        figures = {"four_p95": percentile(keys, 0.95), "four_max": max(keys, default=math.nan),
                   "four_rss": term.peak_rss_mb(), "four_engine_rss": engine_peak_mb(term),
                   "four_stream_s": (end.seen_at or math.nan) - start}
        clear_prompt(term)
        switches = [switch_to(term, name) for name in NAMES]
        shown = [wall for wall, _ in switches]
        return figures | {"switch_median": statistics.median(shown), "switch_max": max(shown),
                          "switch_cpu": statistics.median(cpu for _, cpu in switches)}
    finally:
        term.close()


def switch_to(term: Terminal, name: str) -> tuple[float, float]:
    """Ctrl+B, Down to the next row (the pane opens on the session in view), then Enter: the milliseconds from the
    Enter to the output that shows ``name``'s text, and the CPU milliseconds every process of the app used in the
    switch (until the screen is still again)."""
    term.type(CTRL_B)
    term.wait_shown(PANE_OPEN)
    term.type(DOWN)
    term.pump(until=now() + PANE_SETTLE_S)
    cpu_before = term.cpu_seconds()
    pressed = term.type(ENTER)
    shown = term.wait_shown(marker(name), timeout=30)
    term.wait_shown(f"agent {name} (done)")  # the switch is over: the next Ctrl+B is the next switch's
    term.pump(until=now() + PANE_SETTLE_S)
    return (shown - pressed) * 1000, (term.cpu_seconds() - cpu_before) * 1000


def run_watch(workspace: Path, env: dict[str, str], server: ScriptedServerProcess, seed: int) -> dict[str, float]:
    term = Terminal(coder_argv(workspace), workspace, env)
    try:
        term.start()
        term.wait_shown(PROMPT_PLACEHOLDER)
        before = log_length(server)
        for name in NAMES[:-1]:
            spawn(term, name)
        term.type(f"/agents show {NAMES[0]}" + ENTER)
        term.wait_shown(f"▶ {NAMES[0]}")
        spawn(term, NAMES[-1])
        end = term.expect(ALL_DONE, now())
        measured = type_until(term, end, seed)
        keys = during(measured, released_at(server, before), end.seen_at)
        return {"watch_p95": percentile(keys, 0.95), "watch_max": max(keys, default=math.nan),
                "watch_rss": term.peak_rss_mb()}
    finally:
        term.close()


def one_round(root: Path, seed: int) -> dict[str, float]:
    server = ScriptedServerProcess(root / "arrivals.log", ROOT / "benchmarks" / "agents_scenario.py")
    try:
        env = server.client_env(root / "home")
        for scenario in ("solo", "four", "watch"):
            make_repo(root / scenario)
        figures = run_solo(root / "solo", env, seed)
        figures |= run_four(root / "four", env, server, seed)
        figures |= run_watch(root / "watch", env, server, seed)
        figures["per_agent_rss"] = (figures["four_rss"] - figures["solo_rss"]) / AGENTS
        figures["per_agent_watch_rss"] = (figures["watch_rss"] - figures["solo_rss"]) / AGENTS
        figures["per_agent_engine_rss"] = (figures["four_engine_rss"] - figures["solo_engine_rss"]) / AGENTS
        return figures
    finally:
        server.close()


def fmt(value: float, unit: str) -> str:
    if math.isnan(value):
        return "—"
    return f"{value:.2f} s" if unit == "s" else f"{value:.1f} {unit}" if unit == "MB" else f"{value:.0f} {unit}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    compile_bytecode()
    rounds: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory() as folder:
        for run in range(args.runs + 1):  # the first round warms the file cache
            root = Path(folder) / f"round{run}"
            root.mkdir()
            figures = one_round(root, seed=run)
            if run:
                rounds.append(figures)
                print(f"round {run}: " + ", ".join(f"{k} {v:.3g}" for k, v in figures.items()), flush=True)
    print(f"\nmedian of {len(rounds)} rounds, 120x40 pty, {AGENTS} agents, a key every {KEY_INTERVAL_S * 1000:.0f} ms, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print("| figure | coder-tui | target | met |\n| --- | --- | --- | --- |")
    for figure in FIGURES:
        values = [r[figure.key] for r in rounds if not math.isnan(r.get(figure.key, math.nan))]
        value = statistics.median(values) if values else math.nan
        met = "—" if figure.meets is None or math.isnan(value) else ("yes" if figure.meets(value) else "no")
        print(f"| {figure.label} | {fmt(value, figure.unit)} | {figure.target} | {met} |")


if __name__ == "__main__":
    main()
