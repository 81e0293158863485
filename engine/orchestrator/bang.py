"""The bang branch (SPEC 6): ``!command`` runs at once in the workspace, with no model call, no policy and no risk
approval (the user typed it), and its result joins the conversation so the model sees it in later turns."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from engine.command_results import CommandFailed, ShellCommandRan
from engine.config import Config
from engine.messages import Message
from engine.orchestrator.outcome import TurnOutcome
from engine.orchestrator.recorder import TaskRecorder
from engine.tools.bash import CommandResult as ShellResult
from engine.tools.bash import run_command
from engine.tools.guard import Workspace

if TYPE_CHECKING:
    from engine.orchestrator.engine_parts import EngineParts
    from engine.orchestrator.runtime import SessionRuntime

# The status a shell's ``timeout`` command reports for a command it stopped.
BANG_TIMEOUT_STATUS = 124


async def run_bang_input(orch: EngineParts, runtime: SessionRuntime, command: str) -> TurnOutcome:
    """The input ``!command``: runs it, audits it as the user's bash call, and adds its result to the session."""
    if not command:
        failed = CommandFailed("!", "usage: !<shell command>")
        runtime.emit(failed)
        return TurnOutcome("error", failed.text)
    recorder = TaskRecorder(orch.store, runtime.id, None)
    call_id = f"bang_{uuid.uuid4().hex[:12]}"
    recorder.tool_requested(call_id, "bash", {"command": command}, actor="user")
    event, message = await run_bang(command, runtime.tool_context.workspace, orch.config)
    recorder.tool_completed(
        call_id, "bash", _audited(event), is_error=not event.ok, duration_ms=event.duration_ms, actor="user"
    )
    # A session that starts with a shell command is titled with the command, not the text the model reads.
    orch.store.sessions.update(runtime.id, title=f"$ {command}")
    runtime.session.append(message)
    runtime.emit(event)
    status = BANG_TIMEOUT_STATUS if event.timed_out else event.exit_code
    if event.ok:
        return TurnOutcome("completed", text=event.text, exit_status=status)
    failure = "timed out" if event.timed_out else f"exited with {event.exit_code}"
    return TurnOutcome("error", f"!{command} {failure}", text=event.text, exit_status=status)


def format_bang_result(result: ShellResult) -> str:
    """The fixed structure the model reads: command, exit code, stdout, stderr."""
    if result.timed_out:
        exit_line = f"exit code: none (timed out after {result.duration_ms / 1000:.0f}s; the process group was killed)"
    else:
        exit_line = f"exit code: {result.exit_code}"
    return (
        "The user ran a shell command in the workspace.\n"
        f"$ {result.command}\n"
        f"{exit_line}\n"
        f"stdout:\n{result.stdout}\n"
        f"stderr:\n{result.stderr}"
    ).rstrip("\n")


async def run_bang(command: str, workspace: Workspace, config: Config) -> tuple[ShellCommandRan, Message]:
    result = await run_command(
        command,
        cwd=workspace.root,
        timeout=config.bash.max_timeout,
        cap=config.bash.output_cap_bytes,
    )
    text = format_bang_result(result)
    event = ShellCommandRan(
        command,
        text,
        exit_code=result.exit_code,
        stdout=result.stdout,
        stderr=result.stderr,
        duration_ms=result.duration_ms,
        timed_out=result.timed_out,
        ok=result.exit_code == 0 and not result.timed_out,
    )
    return event, Message.user(text)


def _audited(event: ShellCommandRan) -> dict[str, object]:
    """The result the audit log keeps of a ``!`` command, as of a bash call."""
    return {
        "command": event.command,
        "exit_code": event.exit_code,
        "stdout": event.stdout,
        "stderr": event.stderr,
        "duration_ms": event.duration_ms,
        "timed_out": event.timed_out,
    }
