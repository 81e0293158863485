"""The real ``coder-tui`` on a pseudo-terminal, keeping every byte it writes: what a terminal would have obeyed.

``PtyApp`` starts ``python -m coder_tui`` from this repository on an 80x24 pty, against a scripted server, with its
own HOME and config folder; ``type`` sends keys; ``wait_shown`` feeds the output to a terminal emulator (pyte)
until a text is on screen; ``written`` is all the raw output so far.
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
from pathlib import Path

import pyte

REPO = Path(__file__).resolve().parents[2]


class PtyApp:
    def __init__(
        self, workspace: Path, base_url: str, home: Path, size: tuple[int, int] = (80, 24), args: tuple[str, ...] = (),
        model: str | None = "scripted-model",
    ) -> None:
        """``args``: more of the command line, after ``--cwd``; ``model``: ``CODER_MODEL`` (None: not set)."""
        self.workspace = workspace
        self.args = args
        self.columns, self.rows = size
        self.written = bytearray()
        self.screen = pyte.Screen(self.columns, self.rows)
        self._stream = pyte.ByteStream(self.screen)
        home.mkdir(parents=True, exist_ok=True)
        self._env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm-256color", "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"), "OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "sk-test",
            "PYTHONPATH": str(REPO), "LANG": "C.UTF-8", **({"CODER_MODEL": model} if model else {}),
        }
        self._master = -1
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> PtyApp:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", self.rows, self.columns, 0, 0))
        attrs = termios.tcgetattr(slave)
        attrs[3] &= ~termios.ECHO  # only the program draws what is typed
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        self._master = master
        self.process = subprocess.Popen(
            [sys.executable, "-m", "coder_tui", "--cwd", str(self.workspace), *self.args],
            stdin=slave, stdout=slave, stderr=slave, env=self._env, cwd=self.workspace, start_new_session=True,
        )
        os.close(slave)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
        os.close(self._master)

    def type(self, keys: str) -> None:
        os.write(self._master, keys.encode())

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def wait_exit(self, timeout: float = 60.0) -> int:
        """Reads output until the program ends; its exit status."""
        assert self.process is not None
        deadline = time.monotonic() + timeout
        while self.process.poll() is None or select.select([self._master], [], [], 0)[0]:
            if time.monotonic() > deadline:
                raise AssertionError(f"still running; the screen:\n{self.text()}")
            if select.select([self._master], [], [], 0.2)[0]:
                try:
                    data = os.read(self._master, 65536)
                except OSError:
                    break
                self.written += data
                self._stream.feed(data)
        return self.process.wait()

    def wait_shown(self, text: str, timeout: float = 90.0) -> None:
        """Reads output until ``text`` is on the emulated screen; ``AssertionError`` with the screen otherwise."""
        deadline = time.monotonic() + timeout
        while text not in self.text():
            if time.monotonic() > deadline or (self.process is not None and self.process.poll() is not None):
                raise AssertionError(f"{text!r} never shown; the screen:\n{self.text()}")
            if select.select([self._master], [], [], 0.2)[0]:
                try:
                    data = os.read(self._master, 65536)
                except OSError:
                    data = b""
                self.written += data
                self._stream.feed(data)
