"""The engine in its own process (``python -m engine.server``), spoken to over its stdin/stdout.

``EngineProcess.spawn`` runs before the Textual app starts, so the engine loads (configuration, database, model SDK,
token encoding) on the other core while the first frame is drawn, and none of its work ever holds this
interpreter's lock. Its stderr goes to a temporary file whose tail is shown if it dies.

Importing this module does not import ``asyncio`` (a thirtieth of a second): the command line spawns the engine
first, and the methods that run on the app's loop import it when they run.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

# How much of the engine's stderr a crash report shows.
STDERR_TAIL_BYTES = 1500
# How long a clean shutdown may take before the process is killed.
SHUTDOWN_TIMEOUT_S = 3.0


class EngineProcess:
    """A client connection (``open`` / ``send_line`` / ``aclose``) to one engine process."""

    def __init__(self, process: subprocess.Popen[bytes], stderr: IO[bytes]) -> None:
        self.process = process
        self._stderr = stderr
        self._closing = False
        self._transport: asyncio.ReadTransport | None = None

    @classmethod
    def spawn(
        cls,
        *,
        workspace: Path,
        mode: str | None = None,
        model: str | None = None,
        env: dict[str, str] | None = None,
        trust: bool = False,
        resume: str | None = None,
        cont: bool = False,
    ) -> EngineProcess:
        """``resume`` (an id) or ``cont`` (the latest): the session the app opens with, whose history the engine
        sends before it has loaded."""
        command = [sys.executable, "-m", "engine.server", "--cwd", str(workspace)]
        if mode:
            command += ["--mode", mode]
        if model:
            command += ["--model", model]
        if trust:
            command += ["--trust"]
        if resume:
            command += ["--resume", resume]
        elif cont:
            command += ["--continue"]
        stderr = tempfile.TemporaryFile(prefix="coder-engine-")
        process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=env,
            # Its own session: the terminal's signals are the UI's to handle (Ctrl+C is a key, not SIGINT).
            start_new_session=True,
        )
        return cls(process, stderr)

    @property
    def pid(self) -> int:
        return self.process.pid

    def open(self, on_line: Callable[[str], None], on_exit: Callable[[str], None]) -> None:
        import asyncio

        from coder_tui.link.engine_lines import LineProtocol

        loop = asyncio.get_running_loop()
        stdout = self.process.stdout
        assert stdout is not None

        def ended() -> None:
            if not self._closing:
                loop.create_task(self._report_exit(on_exit))

        protocol = LineProtocol(on_line, ended)
        task = loop.create_task(loop.connect_read_pipe(lambda: protocol, stdout))
        task.add_done_callback(lambda done: setattr(self, "_transport", done.result()[0]))

    def send_line(self, line: str) -> None:
        stdin = self.process.stdin
        if stdin is None or self._closing:
            return
        try:
            stdin.write(line.encode() + b"\n")
            stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            pass  # the process is gone; the end of its stdout reports it

    async def aclose(self) -> None:
        """Closes its stdin (the engine shuts down), waits a moment, then kills it."""
        import asyncio

        self._closing = True
        with contextlib.suppress(OSError):
            if self.process.stdin is not None:
                self.process.stdin.close()
        try:
            await asyncio.wait_for(asyncio.to_thread(self.process.wait), SHUTDOWN_TIMEOUT_S)
        except TimeoutError:
            self.process.kill()
            await asyncio.to_thread(self.process.wait)
        if self._transport is not None:
            self._transport.close()
        self._stderr.close()

    async def detach(self) -> None:
        """Leaves the engine running (it has said ``Detached``): the pipes close, and it is neither waited for nor
        killed; it serves the next UI over its socket."""
        self._closing = True
        with contextlib.suppress(OSError):
            if self.process.stdin is not None:
                self.process.stdin.close()
        if self._transport is not None:
            self._transport.close()
        self._stderr.close()

    async def _report_exit(self, on_exit: Callable[[str], None]) -> None:
        import asyncio

        code = await asyncio.to_thread(self.process.wait)
        how = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
        tail = self.stderr_tail()
        on_exit(f"{how}{': ' + tail if tail else ''}")

    def stderr_tail(self) -> str:
        try:
            size = os.fstat(self._stderr.fileno()).st_size
            self._stderr.seek(max(0, size - STDERR_TAIL_BYTES))
            return self._stderr.read().decode(errors="replace").strip()
        except (OSError, ValueError):
            return ""


class EngineProcesses:
    """Starts engine processes for one app: the first at once (before the app runs), more on restart. ``resume`` /
    ``cont``: the session the first one opens with; a restarted one is sent its session's ``/resume`` by the link."""

    def __init__(
        self,
        *,
        workspace: Path,
        mode: str | None = None,
        model: str | None = None,
        trust: bool = False,
        resume: str | None = None,
        cont: bool = False,
    ) -> None:
        self._arguments = {"workspace": workspace, "mode": mode, "model": model, "trust": trust}
        self._next: EngineProcess | None = EngineProcess.spawn(
            **self._arguments, resume=resume, cont=cont  # type: ignore[arg-type]
        )
        self.current: EngineProcess | None = None

    def __call__(self) -> EngineProcess:
        process, self._next = self._next, None
        self.current = process or EngineProcess.spawn(**self._arguments)  # type: ignore[arg-type]
        return self.current
