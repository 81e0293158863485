"""A test client for the engine process: ``python -m engine.server`` in a subprocess, spoken to in protocol lines."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.messages import Message
from engine.protocol import Codec, ProtocolMessage

ROOT = Path(__file__).resolve().parents[2]
CODEC = Codec([ProtocolMessage], message_from_record=Message.from_record)
# Only turns a hang into a clear failure.
WAIT_S = 60


class EngineClient:
    def __init__(self, workspace: Path, base_url: str, *extra_args: str, env: dict[str, str] | None = None) -> None:
        """``env``: more of the engine's environment."""
        env = (env or {}) | {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "PYTHONPATH": str(ROOT),
            "HOME": str(workspace.parent / "home"),
            "XDG_CONFIG_HOME": str(workspace.parent / "xdg"),
            "OPENAI_BASE_URL": base_url,
            "OPENAI_API_KEY": "sk-test",
            "CODER_MODEL": "scripted-model",
        }
        self.process = subprocess.Popen(
            [sys.executable, "-m", "engine.server", "--cwd", str(workspace), *extra_args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=ROOT,
        )
        self.received: list[Any] = []
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line.decode())
        self._lines.put(None)

    def send(self, message: Any) -> None:
        self.send_line(CODEC.dumps(message))

    def send_line(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()

    def wait_for(self, condition: Callable[[Any], bool], what: str) -> Any:
        """Reads messages until one meets ``condition``; every line must decode."""
        while True:
            try:
                line = self._lines.get(timeout=WAIT_S)
            except queue.Empty:
                raise AssertionError(f"timed out waiting for {what}") from None
            if line is None:
                stderr = self.process.stderr.read().decode() if self.process.stderr else ""
                raise AssertionError(f"the engine exited while waiting for {what}: {stderr[-2000:]}")
            message = CODEC.loads(line)
            self.received.append(message)
            if condition(message):
                return message

    def close(self) -> int:
        if self.process.poll() is None:
            self.process.stdin.close()  # type: ignore[union-attr]
            try:
                self.process.wait(timeout=WAIT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.process.wait()
        return self.process.returncode
