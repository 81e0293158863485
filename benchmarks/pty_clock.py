"""Timing a terminal program the way a user meets it: in a real pseudo-terminal, keys typed ahead from the start.

``time_until_shown`` spawns a command on a fresh pty (no echo, so only the program itself can draw the typed keys),
types ``typed`` the instant the process exists, and stops the clock when every one of ``markers`` has appeared in
what the program wrote to the terminal. Used by ``startup.py`` and ``resume.py``.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# What the benchmarks type ahead: letters no screen shows by chance.
TYPED_MARKER = b"ZQX"


def time_until_shown(
    argv: Sequence[str],
    *,
    cwd: Path,
    markers: Sequence[bytes],
    typed: bytes = TYPED_MARKER,
    size: tuple[int, int] = (120, 40),
    timeout: float = 30.0,
) -> float:
    """Seconds from spawning ``argv`` until all ``markers`` have been drawn; NaN if that took over ``timeout``."""
    master, slave = pty.openpty()
    columns, rows = size
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    attrs = termios.tcgetattr(slave)
    attrs[3] &= ~termios.ECHO  # the pty must not echo the typed keys itself
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    env = {**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor", "PYTHONPATH": str(ROOT)}
    env.pop("TEXTUAL", None)
    started = time.perf_counter()
    process = subprocess.Popen(
        list(argv), stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, start_new_session=True
    )
    os.close(slave)
    os.write(master, typed)
    seen = b""
    missing = list(markers)
    elapsed = float("nan")
    try:
        while missing and time.perf_counter() - started < timeout:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                continue
            try:
                seen += os.read(master, 65536)
            except OSError:
                break
            missing = [marker for marker in missing if marker not in seen]
        if not missing:
            elapsed = time.perf_counter() - started
    finally:
        process.kill()
        process.wait()
        os.close(master)
    return elapsed


def python_argv(*arguments: str) -> list[str]:
    """The command line running this interpreter with ``arguments``."""
    return [sys.executable, *arguments]
