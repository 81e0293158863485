"""Runs one hook command: the event as JSON on stdin, the workspace as working directory, its own process group
(killed whole on timeout), stdout and stderr captured. Never raises for the command's own failure: the caller
reports it and goes on."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.record import record

# What a hook may print; more is cut (a hook is a small program, not a log stream).
MAX_OUTPUT_BYTES = 64 * 1024


@record
class HookRun:
    command: str
    exit_code: int | None
    stdout: str
    stderr: str
    duration_ms: float
    timed_out: bool = False
    error: str | None = None  # could not start

    @property
    def failed(self) -> bool:
        """Not a clean run and not a deliberate block (exit code 2)."""
        return self.timed_out or self.error is not None or self.exit_code not in (0, 2)

    def describe_failure(self) -> str:
        if self.error:
            return f"could not run: {self.error}"
        if self.timed_out:
            return f"timed out after {self.duration_ms / 1000:.0f}s and was stopped"
        detail = self.stderr.strip().splitlines()[-1] if self.stderr.strip() else "no error output"
        return f"exited with {self.exit_code}: {detail}"

    def to_record(self) -> dict[str, Any]:
        return {
            "exit_code": self.exit_code,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "timed_out": self.timed_out,
            "error": self.error,
        }


async def run_hook_command(
    command: str, payload: dict[str, Any], *, cwd: Path, timeout: float, env: Mapping[str, str]
) -> HookRun:
    started = time.perf_counter()
    environment = {**env, "CODER_PROJECT_DIR": str(cwd), "CLAUDE_PROJECT_DIR": str(cwd)}
    try:
        process = await asyncio.create_subprocess_shell(
            command,
            cwd=cwd,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=environment,
            start_new_session=True,
        )
    except OSError as exc:
        return HookRun(command, None, "", "", _ms(started), error=str(exc))
    data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(data), timeout)
    except TimeoutError:
        _kill_group(process)
        await process.wait()
        return HookRun(command, None, "", "", _ms(started), timed_out=True)
    except asyncio.CancelledError:
        _kill_group(process)
        raise
    return HookRun(command, process.returncode, _text(stdout), _text(stderr), _ms(started))


def _kill_group(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _text(data: bytes) -> str:
    return data[:MAX_OUTPUT_BYTES].decode("utf-8", errors="replace")


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
