"""The 20k-token stream of the working tree beside a given commit's, in one sitting (issue 46): so that a regression
in what a long answer costs shows the day it lands.

The commit is built in a temporary folder from ``git archive``; both run as the real ``coder-tui`` command in a
120x40 pty against one scripted server (``bench_scenario.py``), each with its own ``PYTHONPATH``, through
``pty_latency.py``'s session (a 20k-token Markdown answer streamed fast while a key is typed every 40 ms). Rounds
alternate the two, and which goes first, after one warm-up round of each that is not counted. Per run it prints the
machine's load average beside the figures: the CPU seconds of every process the app started, from the request's
Enter to 1.5 s after the answer's end is shown, is what changes least with the machine's load; keys' latency
changes most.

Prints each run, then the medians, their ratio and the targets (issue 46: the stream's CPU at most 0.9x the
commit's, keys p95 at most 10 ms and max under 40 ms while streaming, peak memory at most 130 MB).

With ``--threads`` a last round of each (not counted) prints where the stream's CPU went: every thread of every
process of the app (and what processes that ended used), user and system seconds, largest first.

With ``--profile DIR`` a last round of each (not counted) runs with ``py-spy`` sampling every Python process of
the app while the answer streams (``--gil``: the thread holding the interpreter's lock, so waiting is not counted);
the raw profiles are written to DIR and the top functions of each printed.

    python benchmarks/ab_stream.py 1156f55 --runs 3 [--profile /tmp/profiles]
"""

from __future__ import annotations

import argparse
import compileall
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.pty_driver import ROOT, Terminal, compile_bytecode, process_tree, thread_ticks  # noqa: E402
from benchmarks.pty_latency import Figure, ScriptedServerProcess, run_session  # noqa: E402

CPU_RATIO_TARGET = 0.9
PROFILE_RATE_HZ = 250
TOP_ENTRIES = 15


FIGURES = (
    Figure("stream_cpu", "CPU of every process, Enter to end + 1.5 s", "s", f"<= {CPU_RATIO_TARGET}x the commit",
           lambda tree, commit: tree <= CPU_RATIO_TARGET * commit),
    Figure("stream_p95", "keys while streaming: p95", "ms", "<= 10 ms", lambda tree, _: tree <= 10),
    Figure("stream_max", "keys while streaming: max", "ms", "< 40 ms", lambda tree, _: tree < 40),
    Figure("peak_rss", "peak memory, every process", "MB", "<= 130 MB", lambda tree, _: tree <= 130),
)
# Printed beside the figures: keys are typed for as long as the answer streams, so a slower stream costs more CPU.
DURATION = Figure("stream_s", "Enter until the answer's end is on screen", "s", "—", lambda tree, _: True)
DRAWN = Figure("stream_kb", "bytes written to the terminal meanwhile", "kB", "—", lambda tree, _: True)


@dataclass(frozen=True)
class Side:
    name: str  # as printed
    tag: str  # in file and folder names
    root: Path


def build(commit: str, into: Path) -> Path:
    """``git archive`` of ``commit`` unpacked in ``into``, its modules compiled as an installed package's are."""
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True)
    if archive.returncode:
        raise ValueError(f"git archive {commit}: {archive.stderr.decode(errors='replace').strip()}")
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    for folder in ("engine", "coder_tui"):
        compileall.compile_dir(into / folder, quiet=1)
    return into


def run_once(side: Side, server: ScriptedServerProcess, root: Path, label: str, seed: int,
             watch: Callable[[Terminal], AbstractContextManager[object]] | None = None) -> dict[str, float]:
    """One session of ``side``'s code in a fresh workspace and home; its figures and the load average before it."""
    workspace = root / label
    workspace.mkdir()
    (workspace / "README.md").write_text("# demo\n")
    env = {**server.client_env(root / f"home-{label}"), "PYTHONPATH": str(side.root)}
    load = os.getloadavg()[0]
    figures = run_session(workspace, env, server, seed, watch=watch)
    return {**figures, "load": load}


@contextmanager
def profiled(term: Terminal, folder: Path, side: str) -> Iterator[None]:
    """``py-spy record`` on every Python process of the app while the block runs."""
    assert term.process is not None
    recorders = []
    for pid in process_tree(term.process.pid):
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        if b"python" not in command[0]:
            continue
        name = "engine" if b"engine.server" in b" ".join(command) else "ui"
        output = folder / f"{side}-{name}-{pid}.txt"
        recorders.append(subprocess.Popen(
            ["py-spy", "record", "--pid", str(pid), "--rate", str(PROFILE_RATE_HZ), "--gil", "--nonblocking",
             "--function", "--format", "raw", "--output", str(output)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        ))
    try:
        yield
    finally:
        for recorder in recorders:
            recorder.send_signal(signal.SIGINT)
        for recorder in recorders:
            recorder.wait(timeout=60)


@contextmanager
def per_thread(term: Terminal, into: dict[tuple[int, str, int, str], tuple[float, float]]) -> Iterator[None]:
    """Fills ``into`` with each thread's user and system seconds spent while the block runs."""
    assert term.process is not None
    before = thread_ticks(term.process.pid)
    try:
        yield
    finally:
        tick = os.sysconf("SC_CLK_TCK")
        for key, (user, system) in thread_ticks(term.process.pid).items():
            was_user, was_system = before.get(key, (0, 0))
            if user - was_user or system - was_system:
                into[key] = ((user - was_user) / tick, (system - was_system) / tick)


def print_threads(side: str, spent: dict[tuple[int, str, int, str], tuple[float, float]]) -> None:
    total = sum(user + system for user, system in spent.values())
    print(f"\nwhere {side}'s stream CPU went ({total:.2f} s; user + system, per thread):")
    for (pid, command, tid, name), (user, system) in sorted(spent.items(), key=lambda item: -sum(item[1])):
        role = "engine" if "engine.server" in command else "ui" if "coder_tui" in command or "coder-tui" in command \
            else command.split(" ", 1)[0].rsplit("/", 1)[-1]
        print(f"  {user + system:6.2f} s  (user {user:5.2f}, sys {system:5.2f})  {role} pid {pid} "
              f"{'thread ' + str(tid) if tid else ''} {name}")


def top_entries(raw: Path) -> tuple[int, list[tuple[str, int]], list[tuple[str, int]]]:
    """Samples in a py-spy raw profile, the functions running most (self), and those most on the stack (total)."""
    own: Counter[str] = Counter()
    total: Counter[str] = Counter()
    samples = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack:
            continue
        frames = stack.split(";")
        samples += int(count)
        own[frames[-1]] += int(count)
        for frame in set(frames):
            total[frame] += int(count)
    return samples, own.most_common(TOP_ENTRIES), total.most_common(TOP_ENTRIES * 2)


def print_profiles(folder: Path) -> None:
    for raw in sorted(folder.glob("*.txt")):
        samples, own, total = top_entries(raw)
        print(f"\n{raw.name}: {samples} samples at {PROFILE_RATE_HZ} Hz "
              f"({samples / PROFILE_RATE_HZ:.2f} s holding the interpreter's lock)")
        print("  self:")
        for frame, count in own:
            print(f"    {100 * count / max(samples, 1):5.1f}%  {frame}")
        print("  total:")
        for frame, count in total:
            print(f"    {100 * count / max(samples, 1):5.1f}%  {frame}")


def fmt(value: float, unit: str) -> str:
    if math.isnan(value):
        return "—"
    return f"{value:.2f} {unit}" if unit == "s" else f"{value:.0f} {unit}"


def print_table(sides: tuple[Side, Side], runs: dict[str, list[dict[str, float]]]) -> None:
    tree, commit = sides
    loads = [run["load"] for side in sides for run in runs[side.name]]
    print(f"\nmedian of {len(runs[tree.name])} interleaved runs each, 120x40 pty, a key every 40 ms, "
          f"{os.cpu_count()} cores, load average {min(loads):.1f}-{max(loads):.1f} over the runs")
    print(f"| figure | {commit.name} | {tree.name} | ratio | target | met |\n| --- | --- | --- | --- | --- | --- |")
    for figure in (*FIGURES, DURATION, DRAWN):
        ours = statistics.median(run[figure.key] for run in runs[tree.name])
        theirs = statistics.median(run[figure.key] for run in runs[commit.name])
        pairs = ", ".join(f"{a[figure.key]:.3g}/{b[figure.key]:.3g}"
                          for a, b in zip(runs[tree.name], runs[commit.name], strict=True))
        met = "—" if figure in (DURATION, DRAWN) or figure.meets is None else "yes" if figure.meets(ours, theirs) else "NO"
        print(f"| {figure.label} | {fmt(theirs, figure.unit)} | {fmt(ours, figure.unit)} | "
              f"{ours / theirs:.2f}x | {figure.target} | {met} |   (tree/commit by round: {pairs})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("commit", help="the commit to compare the working tree with (e.g. 1156f55, main)")
    parser.add_argument("--runs", type=int, default=3, help="counted runs of each (default 3)")
    parser.add_argument("--threads", action="store_true",
                        help="one more run of each, the stream's CPU printed per process and thread")
    parser.add_argument("--profile", type=Path, metavar="DIR",
                        help="one more run of each under py-spy, raw profiles written to DIR, top entries printed")
    args = parser.parse_args()
    if args.profile is not None and shutil.which("py-spy") is None:
        parser.error("--profile needs py-spy on PATH (pip install py-spy)")
    compile_bytecode()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        base = root / "commit"
        base.mkdir()
        try:
            sides = (Side("working tree", "tree", ROOT), Side(args.commit, "commit", build(args.commit, base)))
        except ValueError as exc:
            parser.error(f"commit: {exc}")
        runs: dict[str, list[dict[str, float]]] = {side.name: [] for side in sides}
        server = ScriptedServerProcess(root / "arrivals.log")
        try:
            for round_ in range(args.runs + 1):  # round 0 warms the file cache for both
                order = sides if round_ % 2 else sides[::-1]
                for side in order:
                    figures = run_once(side, server, root, f"{side.tag}{round_}", seed=round_)
                    if round_:
                        runs[side.name].append(figures)
                    print(f"{'warm-up' if not round_ else f'round {round_}'} {side.name}: load {figures['load']:.2f}; "
                          f"cpu {figures['stream_cpu']:.2f} s, {figures['stream_kb']:.0f} kB drawn, streamed in {figures['stream_s']:.2f} s, "
                          f"p95 {figures['stream_p95']:.0f} ms, "
                          f"max {figures['stream_max']:.0f} ms, peak {figures['peak_rss']:.0f} MB", flush=True)
            if args.threads:
                for side in sides:
                    spent: dict[tuple[int, str, int, str], tuple[float, float]] = {}
                    run_once(side, server, root, f"{side.tag}-threads", seed=0,
                             watch=lambda term, into=spent: per_thread(term, into))
                    print_threads(side.name, spent)
            if args.profile is not None:
                args.profile.mkdir(parents=True, exist_ok=True)
                for side in sides:
                    figures = run_once(side, server, root, f"{side.tag}-profiled", seed=0,
                                       watch=lambda term, tag=side.tag: profiled(term, args.profile, tag))
                    print(f"profiled {side.name}: load {figures['load']:.2f}; cpu {figures['stream_cpu']:.2f} s "
                          "(py-spy running beside it)", flush=True)
        finally:
            server.close()
    if args.runs:
        print_table(sides, runs)
    if args.profile is not None:
        print_profiles(args.profile)


if __name__ == "__main__":
    main()
