"""Headless mode (SPEC 15): one input, no full screen, plain text or JSON lines, an exit code that says how it went.

Assistant text goes to stdout; progress (tool calls, notices) and errors go to stderr, so ``coder-tui -p ... >
answer.md`` keeps only the answer. With ``--output-format json`` every event is one JSON line on stdout and the
last line is the result object.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from coder_tui.launch.opening import session_input
from coder_tui.link.terminal_text import json_text, terminal_text
from engine.agents.records import AgentRecord, AgentState
from engine.agents.worktree import WorktreeError
from engine.command_results import CommandReply, ShellCommandRan
from engine.config import load_config
from engine.config.startup import config_notices
from engine.events import (
    ErrorEvent,
    Event,
    MessageAdded,
    Notice,
    ReasoningDelta,
    TextDelta,
    ToolCallFinished,
    ToolProgress,
    TurnFinished,
    VerificationFinished,
    VerificationStarted,
    event_to_dict,
)
from engine.interaction import (
    ApprovalDecision,
    ApprovalRequest,
    QuestionAnswer,
    QuestionRequest,
    TrustDecision,
    TrustRequest,
)
from engine.modes import Mode
from engine.orchestrator.front_end import FrontEndEngine, start_engine
from engine.orchestrator.outcome import TurnOutcome
from engine.signals import install_ending_signals
from engine.storage.errors import StorageError
from engine.storage.sessions.rebuild import rebuilt_notice

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_CANCELLED = 130
EXIT_BROKEN_PIPE = 141  # as a shell reports a process killed by SIGPIPE


class HeadlessInteraction:
    """Nobody is there to ask. Approvals never reach here (the orchestrator runs non-interactive and refuses or
    auto-approves per config); a question gets no answer, which the model sees as a refusal."""

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision.NO

    async def ask_question(self, request: QuestionRequest) -> QuestionAnswer:
        return QuestionAnswer(answer=None)

    async def request_trust(self, request: TrustRequest) -> TrustDecision:
        return TrustDecision.LATER  # headless trusts with --trust or the user config's list, never by asking


# What is printed reaches its stream at most this long after it was written: one write for a burst of lines (a
# tool call's progress, a streamed answer's pieces) instead of one each. Every write to a pipe wakes its reader,
# and on a busy machine each wake-up can cost the writer the processor for a while.
FLUSH_AFTER_S = 0.03


class Printer:
    """Gathers what the ``Output``s it serves write while the event loop runs, and writes it ``FLUSH_AFTER_S``
    later in the order it was written (stdout and stderr interleave as they would have); ``flush`` writes what
    waits at once. Without a running loop a write goes out at once."""

    def __init__(self) -> None:
        self._waiting: list[tuple[Output, str]] = []

    def add(self, output: Output, text: str) -> None:
        self._waiting.append((output, text))
        if len(self._waiting) > 1:
            return  # a flush is already due
        try:
            asyncio.get_running_loop().call_later(FLUSH_AFTER_S, self.flush)
        except RuntimeError:
            self.flush()

    def flush(self) -> None:
        waiting, self._waiting = self._waiting, []
        index = 0
        while index < len(waiting):
            output, end = waiting[index][0], index + 1
            while end < len(waiting) and waiting[end][0] is output:
                end += 1
            output.put("".join(text for _, text in waiting[index:end]))
            index = end


class Output:
    """A stream that may be closed by its reader (``coder-tui -p ... | head``): the first broken pipe cancels the
    run, since nobody reads what it would print, and later writes are dropped."""

    def __init__(self, stream: TextIO, on_broken: Callable[[], object], printer: Printer | None = None) -> None:
        self.stream = stream
        self.broken = False
        self._on_broken = on_broken
        self._printer = printer

    def write(self, text: str) -> None:
        if self.broken:
            return
        if self._printer is not None:
            self._printer.add(self, text)
        else:
            self.put(text)

    def put(self, text: str) -> None:
        """Writes ``text`` to the stream now."""
        if self.broken or not text:
            return
        try:
            self.stream.write(text)
            self.stream.flush()
        except BrokenPipeError:
            self.broken = True
            self._on_broken()


class TextRenderer:
    def __init__(self, out: Output, err: Output) -> None:
        self.out = out
        self.err = err
        self._in_text = False
        self._in_reasoning = False
        self._replies = 0  # replies printed so far

    def __call__(self, event: Event) -> None:
        match event:
            case TextDelta(text=text):
                self._end_reasoning()
                if not self._in_text and self._replies:
                    self._print(self.out, "\n")  # a blank line between the replies of one turn
                self._print(self.out, text)
                self._in_text = True
            case ReasoningDelta(text=text):
                self._print(self.err, text)
                self._in_reasoning = True
            case ToolCallFinished(tool=tool, key_argument=key, status=status, duration_ms=ms, result=result):
                self._end_text()
                line = f"[{tool}] {key} -> {status.value}" + (f" ({ms:.0f} ms)" if ms is not None else "")
                if not result.get("ok", False):
                    line += f": {result.get('error', '')}"
                self._print(self.err, line + "\n")
            case ToolProgress(tool=tool):
                self._end_text()
                self._print(self.err, f"[{tool}] {event.summary()}\n")
            case ShellCommandRan(command=command, stdout=stdout, stderr=stderr, timed_out=timed_out):
                # The command's own output, as the shell would print it: not the text the model reads.
                self._end_text()
                self._print(self.out, stdout)
                self._print(self.err, stderr)
                if timed_out:
                    self._print(self.err, f"error: !{command} timed out; its process group was killed\n")
            case CommandReply(text=text, ok=ok):
                self._end_text()
                self._print(self.out if ok else self.err, text.rstrip("\n") + "\n")
            case MessageAdded(message=message) if message.role == "assistant":
                self._end_text()
            case VerificationStarted(command=command, attempt=attempt):
                self._end_text()
                self._print(self.err, f"[verify] {command} (attempt {attempt})\n")
            case VerificationFinished(command=command, outcome=outcome, reason=reason):
                self._print(self.err, f"[verify] {command} -> {outcome}: {reason}\n")
            case Notice(text=text, level=level):
                self._end_text()
                self._print(self.err, f"{level}: {text}\n")
            case ErrorEvent(message=message):
                self._end_text()
                self._print(self.err, f"error: {message}\n")
            case TurnFinished():
                self._end_text()
                self._end_reasoning()
            case _:
                pass

    @staticmethod
    def _print(output: Output, text: str) -> None:
        """Everything text mode prints is outside text made drawable (SPEC 25): escape sequences removed, other
        controls shown (``␛``); a sequence split across two deltas is harmless, each ESC being shown."""
        output.write(terminal_text(text))

    def _end_text(self) -> None:
        if self._in_text:
            self._print(self.out, "\n")
            self._in_text = False
            self._replies += 1

    def _end_reasoning(self) -> None:
        if self._in_reasoning:
            self._print(self.err, "\n")
            self._in_reasoning = False


class JsonRenderer:
    def __init__(self, out: Output) -> None:
        self.out = out

    def __call__(self, event: Event) -> None:
        self.out.write(json_text(event_to_dict(event)) + "\n")


async def run_headless(
    text: str,
    *,
    workspace: Path,
    mode: str | None = None,
    model: str | None = None,
    output_format: str = "text",
    resume: str | None = None,
    cont: bool = False,
    trust: bool = False,
    fork: bool = False,
    worktree: str | None = None,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
) -> int:
    loaded = load_config(workspace, trust=trust)
    for notice, _level in config_notices(loaded, workspace):
        err.write(f"{terminal_text(notice)}\n")
    try:
        orchestrator = start_engine(
            workspace=workspace,
            config=loaded.config,
            interaction=HeadlessInteraction(),
            interactive=False,
            mode=Mode.parse(mode) if mode else None,
            # JSON lines carry every event, the context's size among them; plain text shows none.
            counts_shown=output_format == "json",
            origin="headless",
        )
    except StorageError as exc:
        err.write(f"error: {terminal_text(str(exc))}\n")
        return EXIT_FAILED
    orchestrator.trusted_for_run = trust
    if rebuilt := rebuilt_notice(orchestrator.store):
        err.write(f"warning: {terminal_text(rebuilt)}\n")
    # SIGINT, SIGTERM and SIGHUP cancel what runs (the bash group is killed, the call marked interrupted); the
    # exit code then says which signal it was.
    signals = install_ending_signals(orchestrator, asyncio.get_running_loop())
    printer = Printer()
    stdout, stderr = Output(out, orchestrator.cancel, printer), Output(err, orchestrator.cancel, printer)
    if opening := session_input(resume, cont, fork):
        # What resuming says is progress, not the answer: it goes to stderr in both output formats.
        unsubscribe = orchestrator.subscribe(TextRenderer(stderr, stderr))
        resumed = await orchestrator.run_input(opening)
        unsubscribe()
        printer.flush()
        if not resumed.ok or signals.received is not None:
            await orchestrator.aclose()
            return signals.exit_code(exit_code(resumed))
    if model:
        orchestrator.set_model(model)
    # The server's window (and with no model configured, its model) applies to any input; what that says is
    # progress, on stderr in both output formats.
    unsubscribe = orchestrator.subscribe(TextRenderer(stderr, stderr))
    await orchestrator.server_ready()
    unsubscribe()
    orchestrator.subscribe(JsonRenderer(stdout) if output_format == "json" else TextRenderer(stdout, stderr))
    agent: AgentRecord | None = None
    try:
        if worktree is None:
            outcome = await orchestrator.run_input(text)
        else:
            agent, outcome = await _run_agent(orchestrator, text, mode, worktree)
    finally:
        await orchestrator.aclose()
        signals.remove()
        printer.flush()
    if output_format == "json":
        stdout.write(json_text(_result_line(outcome, orchestrator, agent)) + "\n")
    elif agent is not None:
        stdout.write(f"\nbranch: {agent.branch}\n")
        stderr.write(f"worktree: {terminal_text(agent.root)}\n")
    printer.flush()
    if stdout.broken:
        _silence(out)
        return EXIT_BROKEN_PIPE
    return signals.exit_code(exit_code(outcome))


def _silence(stream: TextIO) -> None:
    """After a broken pipe, point the stream at /dev/null so the interpreter's final flush does not complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
    except (OSError, ValueError, AttributeError):
        pass


async def _run_agent(
    orchestrator: FrontEndEngine, text: str, mode: str | None, name: str
) -> tuple[AgentRecord | None, TurnOutcome]:
    """``--worktree``: ``text`` runs as an agent on a worktree of its own (SPEC 26); the outcome is its end."""
    pool = orchestrator.agents
    try:
        agent = await pool.spawn(text, Mode.parse(mode) if mode else None, name or None)
    except WorktreeError as exc:
        orchestrator.emit(ErrorEvent(str(exc)))
        return None, TurnOutcome("error", str(exc))
    pool.show(agent.name)  # a signal now cancels the agent, the session in view
    ended = await pool.wait(agent.name)
    if ended.state is AgentState.DONE:
        return ended, TurnOutcome("completed")
    return ended, TurnOutcome("cancelled" if ended.state is AgentState.CANCELLED else "error", ended.note or None)


def _result_line(outcome: TurnOutcome, orchestrator: FrontEndEngine, agent: AgentRecord | None) -> dict[str, object]:
    worktree = {"branch": agent.branch, "worktree": agent.root} if agent is not None else {}
    return {
        "type": "result",
        "ok": outcome.ok,
        "reason": outcome.reason,
        "error": outcome.error,
        "text": outcome.text,
        **({"exit_status": outcome.exit_status} if outcome.exit_status is not None else {}),
        "session_id": orchestrator.session_id,
        "session_file": str(orchestrator.session.path),
        **worktree,
    }


def exit_code(outcome: TurnOutcome) -> int:
    """0 for an input that ended normally; a ``!command``'s own status; 130 when cancelled; 1 for any failure
    (provider error, step limit, a cut answer, a failed auto-verify...)."""
    if outcome.exit_status is not None:
        status = outcome.exit_status
        return 128 - status if status < 0 else min(status, 255)  # killed by signal N: 128 + N, as a shell says
    if outcome.ok:
        return EXIT_OK
    if outcome.reason == "cancelled":
        return EXIT_CANCELLED
    return EXIT_FAILED


def run_headless_sync(text: str, **kwargs: object) -> int:
    return asyncio.run(run_headless(text, **kwargs))  # type: ignore[arg-type]
