"""The ``bash`` tool, and ``run_command``, which the ``!`` branch of the orchestrator calls directly (SPEC 5, 6, 14).

A command runs as ``bash -c`` in the workspace, in a session of its own: it has no terminal to prompt on, and its
whole process group (pipelines, ``&`` jobs, a test runner's workers) can be signalled at once. Whatever way the call
ends (normal exit, timeout, cancellation), the group is stopped before ``run_command`` returns, so no process
outlives its call: background jobs that are still running when the shell exits are stopped too. On Linux the
sandbox launcher stands between this process and the shell as a child subreaper, so a process that left the group
(``setsid``) is ended as well, and also if coder itself dies (engine.sandbox.launcher).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import shutil
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from engine.errors import ToolError
from engine.record import record
from engine.sandbox import SandboxGrant, SandboxSupport, detect
from engine.sandbox.command import ConfinedCommand, confine, refused_write_note, unconfined
from engine.tools.base import Tool, ToolContext, ToolKind, ToolOutput

# SIGTERM first so test runners and servers can clean up; SIGKILL after this many seconds.
TERMINATE_GRACE_S = 1.0
# How long to wait for killed processes to be reaped, and for pipes to report end of file, before giving up on them.
_SETTLE_S = 2.0
_POLL_S = 0.01


@record
class CommandResult:
    """The outcome of one command. ``exit_code`` is None when it was killed on timeout; negative: killed by a signal."""

    command: str
    exit_code: int | None
    stdout: str
    stderr: str
    duration_ms: int
    timed_out: bool = False

    def to_data(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "exit_code": self.exit_code,
            "stdout": self.stdout,
            "stderr": self.stderr,
            "duration_ms": self.duration_ms,
        }


class BashParams(BaseModel):
    command: str = Field(min_length=1, description="The shell command line, run with bash -c in the workspace root.")
    timeout: float | None = Field(
        default=None, gt=0, description="Seconds before the command is killed. Default 120; capped at 600."
    )


class BashTool(Tool[BashParams]):
    name = "bash"
    description = (
        "Run a shell command with bash -c in the workspace root, with no terminal and no input (stdin is empty; "
        "interactive prompts fail). Returns the exit code, stdout and stderr (each capped: long output keeps its "
        "beginning and end) and the duration. A non-zero exit code is a normal result, not an error. On timeout "
        "the command and all its child processes are killed. Processes left running in the background when the "
        "command ends are stopped, so this tool cannot keep a server running. Prefer read, list, glob and grep "
        "for looking at files."
    )
    params = BashParams
    kind = ToolKind.EXECUTE

    def key_argument(self, params: BashParams) -> str:
        return params.command

    async def run(self, params: BashParams, ctx: ToolContext) -> ToolOutput:
        limits = ctx.limits
        timeout = min(params.timeout or limits.bash_timeout_s, limits.bash_max_timeout_s)
        result = await run_command(
            params.command, ctx.workspace.root, timeout, limits.output_cap_bytes, sandbox=ctx.sandbox,
            on_output=ctx.on_output,
        )
        if result.timed_out:
            # The partial output goes in the message: a failed call reaches the model as its error text only.
            parts = [f"command timed out after {timeout:g}s and was killed"]
            outputs = (("stdout", result.stdout), ("stderr", result.stderr))
            parts += [f"{name}:\n{text}" for name, text in outputs if text]
            raise ToolError("\n".join(parts))
        data = result.to_data()
        note = refused_write_note(ctx.sandbox, detect(), result.exit_code, result.stderr) if ctx.sandbox else None
        if note is not None:
            data["sandbox"] = note
        return ToolOutput(data=data)


# Called with ("stdout" or "stderr", text) as the command prints: decoded as it comes, a character split between
# two reads kept for the next.
OutputCallback = Callable[[str, str], None]


async def run_command(
    command: str,
    cwd: Path,
    timeout: float,
    cap: int,
    *,
    sandbox: SandboxGrant | None = None,
    on_output: OutputCallback | None = None,
) -> CommandResult:
    """Runs ``command`` with bash (sh if there is no bash) and returns its capped output.

    ``cap`` bounds stdout and stderr each. A timeout kills the process group and returns ``timed_out=True`` with
    the output so far; cancellation kills the group, waits for it, and re-raises ``CancelledError`` unchanged.
    With a ``sandbox`` grant the command runs confined (SPEC 13, 20; only its environment where the system has no
    sandbox) with a private temp folder, removed afterwards. With or without one, on Linux it runs under the
    launcher, which ends every process the command started, those that left its group included. ``on_output``
    sees the output as it comes, uncapped.
    """
    support = detect()
    if sandbox is not None:
        confined = await _off_the_loop(sandbox, support, command, cwd)
    else:
        confined = unconfined(support, _shell(), command)
    try:
        return await _run(command, confined.argv, confined, cwd, timeout, cap, on_output)
    finally:
        confined.cleanup()


async def _off_the_loop(sandbox: SandboxGrant, support: SandboxSupport, command: str, cwd: Path) -> ConfinedCommand:
    """``confine`` in a thread, since it walks the workspace for repositories (engine.sandbox.git_repos); when the
    call is cancelled meanwhile, the temp folder it makes is removed once it is made."""
    preparing = asyncio.ensure_future(asyncio.to_thread(confine, sandbox, support, _shell(), command, cwd))
    try:
        return await asyncio.shield(preparing)
    except asyncio.CancelledError:
        preparing.add_done_callback(lambda done: done.cancelled() or done.exception() or done.result().cleanup())
        raise


async def _run(
    command: str,
    argv: list[str],
    confined: ConfinedCommand,
    cwd: Path,
    timeout: float,
    cap: int,
    on_output: OutputCallback | None,
) -> CommandResult:
    started = time.monotonic()
    loop = asyncio.get_running_loop()
    starting = asyncio.ensure_future(
        loop.subprocess_exec(
            lambda: _ShellProtocol(loop, cap, on_output),
            *argv,
            cwd=cwd,
            env=confined.env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
    )
    try:
        transport, shell = await asyncio.shield(starting)
    except OSError as exc:
        raise ToolError(f"cannot start the shell in {cwd}: {exc.strerror or exc}") from exc
    except asyncio.CancelledError:
        # Cancelled while the shell starts (the shell may already be running its command): asyncio's start, if
        # cancelled half-way, waits for an exit it was never told to watch for, for ever. So the start finishes
        # (it is quick), then the group is stopped as after any cancellation.
        with contextlib.suppress(OSError):
            transport, _ = await starting
            try:
                await stop_process_group(transport.get_pid())
            finally:
                transport.close()
        raise
    try:
        # The shell's own exit, not the end of its pipes, which a background job may hold open.
        done, _ = await asyncio.wait({shell.exited}, timeout=timeout)
        timed_out = not done
    finally:
        try:
            # With start_new_session the shell leads its own group, whose id is its pid.
            await stop_process_group(transport.get_pid())
            # Pipes held by a process that left the group (setsid) are abandoned rather than waited on for ever.
            await asyncio.wait({shell.closed}, timeout=_SETTLE_S)
        finally:
            transport.close()
    return CommandResult(
        command=command,
        exit_code=None if timed_out else transport.get_returncode(),
        stdout=shell.stdout.text(),
        stderr=shell.stderr.text(),
        duration_ms=round((time.monotonic() - started) * 1000),
        timed_out=timed_out,
    )


class _ShellProtocol(asyncio.SubprocessProtocol):
    """Collects the two output streams and tells apart "the shell exited" from "every pipe is closed"."""

    def __init__(self, loop: asyncio.AbstractEventLoop, cap: int, on_output: OutputCallback | None) -> None:
        self.stdout = CappedOutput(cap)
        self.stderr = CappedOutput(cap)
        self.exited: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self._on_output = on_output
        self._decoders = {fd: codecs.getincrementaldecoder("utf-8")(errors="replace") for fd in (1, 2)}

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        chunk = data.encode() if isinstance(data, str) else data
        (self.stdout if fd == 1 else self.stderr).feed(chunk)
        if self._on_output is not None and (text := self._decoders[fd].decode(chunk)):
            self._on_output("stdout" if fd == 1 else "stderr", text)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


class CappedOutput:
    """Keeps the first and the last ``cap // 2`` bytes of a stream and counts what lies between."""

    def __init__(self, cap: int) -> None:
        self._head_cap = cap // 2
        self._tail_cap = cap - self._head_cap
        self._head = bytearray()
        self._tail = bytearray()
        self._total = 0

    def feed(self, chunk: bytes) -> None:
        self._total += len(chunk)
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self._tail += chunk
            if len(self._tail) > self._tail_cap:
                del self._tail[: len(self._tail) - self._tail_cap]

    def text(self) -> str:
        omitted = self._total - len(self._head) - len(self._tail)
        if omitted <= 0:
            return bytes(self._head + self._tail).decode("utf-8", errors="replace")
        head = bytes(self._head).decode("utf-8", errors="replace")
        tail = bytes(self._tail).decode("utf-8", errors="replace")
        return f"{head}\n... {omitted} bytes omitted ...\n{tail}"


async def stop_process_group(pgid: int, grace: float = TERMINATE_GRACE_S) -> None:
    """SIGTERM the group, SIGKILL whatever still lives after ``grace``, and wait until nothing in it runs.

    Cheap when the group is already empty (the usual case after a normal exit). If this wait is itself cancelled,
    SIGKILL is still sent before the cancellation goes on.
    """
    if not _signal_group(pgid, signal.SIGTERM):
        return
    stopped = False
    try:
        stopped = await _wait_until_stopped(pgid, grace)
    finally:
        if not stopped:
            _signal_group(pgid, signal.SIGKILL)
    if not stopped:
        await _wait_until_stopped(pgid, _SETTLE_S)


def _signal_group(pgid: int, signum: int) -> bool:
    """Sends ``signum`` to the group; False when the group no longer exists."""
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        return False
    except PermissionError:
        # A member we may not signal (setuid); it still exists.
        return True
    return True


async def _wait_until_stopped(pgid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while group_still_runs(pgid):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(_POLL_S)
    return True


def group_still_runs(pgid: int) -> bool:
    """Whether a member of the group is still running.

    Killed background jobs are orphans: their zombies belong to init, which may take a while to reap them (some
    container inits do it every few seconds). A zombie runs nothing, so on Linux the group counts as stopped once
    only zombies remain; elsewhere the group must be gone.
    """
    if not _signal_group(pgid, 0):
        return False
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True
    for entry in entries:
        found = _proc_state_and_group(entry) if entry.isdigit() else None
        if found is not None and found[1] == pgid and found[0] not in ("Z", "X"):
            return True
    return False


def _proc_state_and_group(pid: str) -> tuple[str, int] | None:
    """(state, process group) from ``/proc/<pid>/stat``; None when the process is gone meanwhile."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    # The command name, in parentheses, may hold spaces and ')': the fields that follow are after the last ')'.
    fields = stat[stat.rindex(b")") + 2 :].split()
    return fields[0].decode(), int(fields[2])


def _shell() -> str:
    if os.access("/bin/bash", os.X_OK):
        return "/bin/bash"
    return shutil.which("bash") or shutil.which("sh") or "/bin/sh"
