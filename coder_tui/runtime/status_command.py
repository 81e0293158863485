"""``status_line.command`` (SPEC 27): a status line of the user's own, the way Claude Code's ``statusLine`` works, so
an existing Claude Code status-line script runs unchanged. The command gets Claude Code's JSON on stdin (model,
workspace, session id, transcript path, cost, context window, version) and the first line it prints is shown.

It runs again after the session's events, at most every ``MIN_INTERVAL_S`` (events arriving meanwhile make one more
run once it has passed), never two at a time; it runs as its own process group, off the event loop's way (input is
never blocked), and one that outlives ``timeout_s`` is killed and leaves the line as it was. Its ANSI colours are
kept; any other control character goes through ``terminal_text`` like all text from outside.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text
from textual.content import Content

from coder_tui.link.terminal_text import terminal_text
from engine.events import Event, ModelChanged, UsageUpdated
from engine.protocol import EngineState

MIN_INTERVAL_S = 0.3


@dataclass
class StatusFacts:
    """What the status line knows of the session, as the events told it."""

    workspace: Path
    session_id: str
    model: str
    context_window: int
    context_used: int = 0
    cost_usd: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    last_input: int = 0
    last_output: int = 0
    started: float = 0.0

    def heard(self, event: Event) -> None:
        match event:
            case UsageUpdated() as usage:
                self.context_used, self.context_window = usage.context_tokens, usage.context_window
                if usage.prompt_tokens or usage.completion_tokens:
                    self.input_tokens += usage.prompt_tokens
                    self.output_tokens += usage.completion_tokens
                    self.last_input, self.last_output = usage.prompt_tokens, usage.completion_tokens
                if usage.session_cost_usd is not None:
                    self.cost_usd = usage.session_cost_usd
            case ModelChanged(model=model):
                self.model = model
            case _ if (session_id := getattr(event, "session_id", None)) and isinstance(session_id, str):
                self.session_id = session_id  # a command's result that switched the session (/new, /resume)


def status_payload(facts: StatusFacts, version: str, now: float) -> dict[str, Any]:
    """The JSON Claude Code gives its ``statusLine`` command, from what coder-tui knows."""
    window = facts.context_window
    used = round(100 * facts.context_used / window, 1) if window else 0
    folder = str(facts.workspace)
    return {
        "hook_event_name": "Status",
        "session_id": facts.session_id,
        "transcript_path": str(facts.workspace / ".coder" / "sessions" / f"{facts.session_id}.json"),
        "cwd": folder,
        "model": {"id": facts.model, "display_name": facts.model},
        "workspace": {"current_dir": folder, "project_dir": folder},
        "version": version,
        "output_style": {"name": "default"},
        "cost": {
            "total_cost_usd": facts.cost_usd,
            "total_duration_ms": int((now - facts.started) * 1000),
            "total_api_duration_ms": 0,
            "total_lines_added": 0,
            "total_lines_removed": 0,
        },
        "context_window": {
            "total_input_tokens": facts.input_tokens,
            "total_output_tokens": facts.output_tokens,
            "context_window_size": window,
            "used_percentage": used,
            "remaining_percentage": round(100 - used, 1),
            "current_usage": {
                "input_tokens": facts.last_input,
                "output_tokens": facts.last_output,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        },
        "exceeds_200k_tokens": facts.context_used > 200_000,
    }


def shown_line(output: bytes) -> Content | None:
    """The first line of the command's output, its colours kept and nothing else of the terminal's; None when it
    printed nothing."""
    lines = output.decode("utf-8", "replace").splitlines()
    if not lines or not lines[0].strip():
        return None
    decoded = Text.from_ansi(lines[0])
    console = Console(color_system="truecolor", width=10_000, legacy_windows=False)
    safe = Text.assemble(*((terminal_text(segment.text), segment.style) for segment in decoded.render(console)))
    return Content.from_rich_text(safe)


def coder_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("coder-tui")
    except PackageNotFoundError:
        return "dev"


class StatusCommand:
    """Runs the command for ``show`` after events, throttled; ``close`` stops a run in progress."""

    def __init__(self, state: EngineState, show: Callable[[Content | None], None]) -> None:
        assert state.status_line_command is not None
        self.command = state.status_line_command
        self.timeout_s = state.status_line_timeout_s
        self.facts = StatusFacts(
            Path(state.workspace), state.session_id, state.model, state.context_window, started=time.monotonic()
        )
        self.show = show
        self.version = coder_version()
        self._task: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._again = False
        self._last_run = -MIN_INTERVAL_S

    def heard(self, event: Event) -> None:
        self.facts.heard(event)
        self.refresh()

    def refresh(self) -> None:
        """Runs the command now, or as soon as the last run is ``MIN_INTERVAL_S`` old and over."""
        if self._task is not None:
            self._again = True
            return
        if self._timer is not None:
            return
        wait = self._last_run + MIN_INTERVAL_S - time.monotonic()
        loop = asyncio.get_running_loop()
        if wait > 0:
            self._timer = loop.call_later(wait, self._start)
        else:
            self._start()

    def _start(self) -> None:
        self._timer = None
        self._last_run = time.monotonic()
        self._task = asyncio.get_running_loop().create_task(self._run())
        self._task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        self._task = None
        if self._again and not task.cancelled():
            self._again = False
            self.refresh()

    async def _run(self) -> None:
        payload = json.dumps(status_payload(self.facts, self.version, time.monotonic())).encode()
        try:
            process = await asyncio.create_subprocess_shell(
                self.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL,
                cwd=self.facts.workspace,
                start_new_session=True,
            )
        except OSError:
            return
        try:
            output, _ = await asyncio.wait_for(process.communicate(payload), self.timeout_s)
        except asyncio.TimeoutError:
            _kill(process)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(process.wait(), 1.0)
            return
        except asyncio.CancelledError:
            _kill(process)
            raise
        # As in Claude Code, a failing command or an empty line gives the line back (here: to the built-in one).
        self.show(shown_line(output) if process.returncode == 0 else None)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._task is not None:
            self._task.cancel()


def _kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
