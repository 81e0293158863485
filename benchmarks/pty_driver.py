"""Driving a terminal program the way a user meets it: a real pseudo-terminal, real keystrokes, and a terminal
emulator (pyte) to know when something is on screen.

``Terminal`` spawns a command on a fresh 120x40 pty (no echo, so only the program itself draws the typed keys). A
reader thread stamps every chunk the program writes with the time it arrived; the emulator may parse later (it is
slow on big frames), but a key counts as shown at the arrival time of the chunk that made it visible. Keys are typed
on a fixed schedule whatever the program is doing, as a user does.

Every clock here is ``time.monotonic`` (CLOCK_MONOTONIC, the same in every process), so a time another process
logs (the scripted server's request arrival) compares with ours.
"""

from __future__ import annotations

import fcntl
import math
import os
import pty
import queue
import string
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyte

ROOT = Path(__file__).resolve().parent.parent
SIZE = (120, 40)
# Typed first in every measured line: the screen never shows these letters by chance. A key counts as shown when
# the anchor followed by every letter typed up to it is on screen.
ANCHOR = "ZQX"
LETTERS = string.ascii_lowercase
HOME, KILL_LINE, ENTER, ESCAPE = "\x1b[H", "\x0b", "\r", "\x1b"
# The emulator parses at most this much between two checks of the key schedule.
PARSE_SLICE = 4096
READER_SWITCH_INTERVAL_S = 0.0002


def now() -> float:
    return time.monotonic()


@dataclass
class Expectation:
    """A text to see on screen; ``seen_at`` is the arrival time of the output that showed it."""

    text: str
    since: float
    seen_at: float | None = None
    # Not seen in all the output that arrived up to this time (set by ``settle``).
    unseen_until: float | None = None

    @property
    def latency_ms(self) -> float | None:
        """Until it was shown; a key never shown counts as the whole time it was waited for (a lower bound)."""
        if self.seen_at is not None:
            return (self.seen_at - self.since) * 1000
        if self.unseen_until is not None:
            return (self.unseen_until - self.since) * 1000
        return None


@dataclass
class Terminal:
    argv: Sequence[str]
    cwd: Path
    env: dict[str, str]
    size: tuple[int, int] = SIZE
    started: float = 0.0
    process: subprocess.Popen[bytes] | None = None
    _chunks: queue.Queue[tuple[float, bytes] | None] = field(default_factory=queue.Queue)
    _pending: list[Expectation] = field(default_factory=list)
    _held: tuple[float, bytes] | None = None
    _ended: bool = False
    # When the output parsed last arrived.
    _last_arrived: float = 0.0
    # Every byte the program wrote to the terminal so far (frames cost their writing and the terminal's parsing).
    bytes_out: int = 0

    def __post_init__(self) -> None:
        columns, rows = self.size
        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.ByteStream(self.screen)

    # -- process --------------------------------------------------------------------------------------------------
    def start(self) -> float:
        """Spawns the program; returns the spawn time."""
        master, slave = pty.openpty()
        columns, rows = self.size
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        attrs = termios.tcgetattr(slave)
        attrs[3] &= ~termios.ECHO  # only the program may draw the typed keys
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        self._master = master
        self.started = now()
        self.process = subprocess.Popen(
            list(self.argv), stdin=slave, stdout=slave, stderr=slave, env=self.env, cwd=self.cwd,
            start_new_session=True,
        )
        os.close(slave)
        # The reader thread stamps output as it arrives, but it needs this interpreter's lock to read, and the main
        # thread holds it while pyte parses what came before (a repainted 120x40 screen takes it ~10 ms): at the
        # default switch interval each chunk of a large frame was stamped up to 5 ms late, the driver's time counted
        # as the app's (keys while an answer streams: p95 17 ms stamped late, 14 ms on arrival).
        sys.setswitchinterval(READER_SWITCH_INTERVAL_S)
        threading.Thread(target=self._read, daemon=True).start()
        return self.started

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self._master, 65536)
            except OSError:
                data = b""
            if not data:
                self._chunks.put(None)
                return
            self.bytes_out += len(data)
            self._chunks.put((now(), data))

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            for pid in reversed(process_tree(self.process.pid)):
                try:
                    os.kill(pid, 9)
                except ProcessLookupError:
                    pass
            self.process.wait()
        os.close(self._master)

    def peak_rss_mb(self) -> float:
        """The sum of the peak resident memory (VmHWM) of the program and every process it started."""
        assert self.process is not None
        total_kb = 0
        for pid in process_tree(self.process.pid):
            total_kb += _status_kb(pid, "VmHWM")
        return total_kb / 1024

    def cpu_seconds(self) -> float:
        """The CPU time (user and system) used so far by the program and every process it started that is still
        running, with what their reaped children used."""
        assert self.process is not None
        return sum(_cpu_ticks(pid) for pid in process_tree(self.process.pid)) / os.sysconf("SC_CLK_TCK")

    # -- keys -----------------------------------------------------------------------------------------------------
    def type(self, keys: str) -> float:
        at = now()
        os.write(self._master, keys.encode())
        return at

    def expect(self, text: str, since: float) -> Expectation:
        expectation = Expectation(text, since)
        self._pending.append(expectation)
        return expectation

    def type_schedule(
        self, keys: Sequence[str], expected: Sequence[str | None], *, interval: float = 0.04, start: float | None = None
    ) -> list[Expectation]:
        """Types ``keys[i]`` at ``start + i * interval`` and expects ``expected[i]`` (when given) on screen."""
        start = now() if start is None else start
        measured = []
        for index, (key, text) in enumerate(zip(keys, expected, strict=True)):
            self.pump(until=start + index * interval)
            at = self.type(key)
            if text is not None:
                measured.append(self.expect(text, at))
        return measured

    # -- the screen ------------------------------------------------------------------------------------------------
    def text(self) -> str:
        return "\n".join(self.screen.display)

    def wait_for(self, condition: Callable[[str], bool], timeout: float = 30.0) -> float:
        """Parses output until ``condition(screen text)`` holds; returns the arrival time of the output that made it
        hold. Raises ``TimeoutError``.

        A screen that already meets it returns at once, with the arrival time of the output parsed last: a pump
        without a probe (between typed keys, say) parses without checking, and the probe only looks again when more
        output comes (``long_session.py`` waited for its request's echo, parsed while typing, until the cursor's next
        blink, ~0.8 s later, each exchange)."""
        if condition(self.text()):
            return self._last_arrived
        probe = _Probe(condition)
        deadline = now() + timeout
        while probe.at is None:
            if now() > deadline or (self._ended and self._chunks.empty() and self._held is None):
                raise TimeoutError(f"the screen never met the condition; it shows:\n{self.text()}")
            self.pump(until=min(deadline, now() + 0.05), probe=probe)
        return probe.at

    def wait_seen(self, expectation: Expectation, timeout: float) -> None:
        """Parses output until ``expectation`` is seen or ``timeout`` seconds after it was typed."""
        deadline = expectation.since + timeout
        while expectation.seen_at is None and not self._ended and now() < deadline:
            self.pump(until=min(deadline, now() + 0.02))

    def wait_shown(self, text: str, timeout: float = 30.0) -> float:
        return self.wait_for(lambda screen: text in screen, timeout)

    def settle(self, expectations: Sequence[Expectation], grace: float = 2.0) -> None:
        """Parses output until every expectation is seen, or until all the output that arrived up to ``grace``
        seconds after the last one was typed has been parsed (the emulator may lag far behind the program under
        load; what the program drew in time still counts, at the time it drew it)."""
        if not expectations:
            return
        cutoff = max(e.since for e in expectations) + grace
        while any(e.seen_at is None for e in expectations) and not self._ended:
            if now() < cutoff:
                self.pump(until=min(cutoff, now() + 0.05))
            elif self._next_arrival() <= cutoff:
                self.pump(until=now() + 0.05)
            else:
                break
        for expectation in expectations:
            if expectation.seen_at is None:
                expectation.unseen_until = cutoff

    def _next_arrival(self) -> float:
        if self._held is not None:
            return self._held[0]
        with self._chunks.mutex:
            item = self._chunks.queue[0] if self._chunks.queue else None
        return math.inf if item is None else item[0]

    def pump(self, until: float, probe: _Probe | None = None) -> None:
        """Parses arrived output until the clock reaches ``until`` (or, with ``probe``, until it holds)."""
        while True:
            if self._held is None:
                remaining = until - now()
                if remaining <= 0:
                    return
                try:
                    item = self._chunks.get(timeout=remaining)
                except queue.Empty:
                    return
                if item is None:
                    self._ended = True
                    return
                self._held = item
            arrived, data = self._held
            piece, rest = data[:PARSE_SLICE], data[PARSE_SLICE:]
            self._held = (arrived, rest) if rest else None
            self.stream.feed(piece)
            self._last_arrived = arrived
            if self._pending or probe is not None:
                self._check(arrived, probe)
            if probe is not None and probe.at is not None:
                return
            if self._held is not None and now() >= until:
                return

    def _check(self, arrived: float, probe: _Probe | None) -> None:
        if not self.screen.dirty:
            return
        self.screen.dirty.clear()
        screen = self.text()
        if probe is not None and probe.at is None and probe.condition(screen):
            probe.at = arrived
        still = []
        for expectation in self._pending:
            if expectation.text in screen:
                expectation.seen_at = arrived
            else:
                still.append(expectation)
        self._pending = still


@dataclass
class _Probe:
    condition: Callable[[str], bool]
    at: float | None = None


def typing_run(letters: str, line: int = 0) -> tuple[list[str], list[str | None]]:
    """Keys and what the prompt shows after each: an anchor of its own for this ``line`` (not measured, so an
    older line still on screen never matches), then ``letters``."""
    anchor = line_anchor(line)
    keys = list(anchor) + list(letters)
    expected: list[str | None] = [None] * len(anchor)
    expected += [anchor + letters[: index + 1] for index in range(len(letters))]
    return keys, expected


def line_anchor(line: int) -> str:
    return ANCHOR if line == 0 else ANCHOR[:2] + "ABCDEFGHIJKLMNOPRSTUVWY"[line % 23]


def letters_for(count: int, seed: int) -> str:
    """``count`` letters in a fixed pseudo-random order (no screen text matches them by chance)."""
    import random

    chooser = random.Random(seed)
    return "".join(chooser.choice(LETTERS) for _ in range(count))


def process_tree(root: int) -> list[int]:
    """``root`` and every process descended from it, parents first."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    tree, index = [root], 0
    while index < len(tree):
        tree.extend(children.get(tree[index], []))
        index += 1
    return tree


def thread_ticks(root: int) -> dict[tuple[int, str, int, str], tuple[int, int]]:
    """(user, system) clock ticks of every thread of ``root``'s process tree, by (pid, the process's command,
    tid, the thread's name); a process's reaped children count under its own pid with tid 0."""
    ticks: dict[tuple[int, str, int, str], tuple[int, int]] = {}
    for pid in process_tree(root):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            ticks[(pid, command.strip()[:80], 0, "reaped children")] = (int(fields[13]), int(fields[14]))
            for tid in os.listdir(f"/proc/{pid}/task"):
                name = Path(f"/proc/{pid}/task/{tid}/comm").read_text().strip()
                with open(f"/proc/{pid}/task/{tid}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
                ticks[(pid, command.strip()[:80], int(tid), name)] = (int(fields[11]), int(fields[12]))
        except OSError:
            continue
    return ticks


def _cpu_ticks(pid: int) -> int:
    """utime + stime + cutime + cstime of ``pid`` in clock ticks (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return sum(int(value) for value in fields[11:15])


def _status_kb(pid: int, key: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def percentile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile (p95 of 75 keys is the 72nd smallest)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), math.ceil(fraction * len(ordered))))
    return ordered[rank - 1]


def bench_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor", "PYTHONPATH": str(ROOT), **extra}
    env.pop("TEXTUAL", None)
    # A user's interpreter keeps the bytecode it compiles; this machine's environment says not to, which would make
    # every launch compile the project's modules from source again.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def compile_bytecode() -> None:
    """Compiles the project's modules, as ``pip install`` does for an installed package (an editable install
    compiles them at the first run instead): the figures are those of a user's second launch, not of the first."""
    import compileall

    for folder in ("engine", "coder_tui", "tests/support", "benchmarks"):
        compileall.compile_dir(ROOT / folder, quiet=1)


def python_argv(*arguments: str) -> list[str]:
    return [sys.executable, *arguments]
