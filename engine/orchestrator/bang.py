"""The bang branch (SPEC 6): ``!command`` runs at once in the workspace, with no model call, no policy and no risk
approval (the user typed it), and its result joins the conversation so the model sees it in later turns."""

from __future__ import annotations

from engine.config import Config
from engine.events import CommandResult
from engine.messages import Message
from engine.tools.bash import CommandResult as ShellResult
from engine.tools.bash import run_command
from engine.tools.guard import Workspace


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


async def run_bang(command: str, workspace: Workspace, config: Config) -> tuple[CommandResult, Message]:
    result = await run_command(
        command,
        cwd=workspace.root,
        timeout=config.bash.max_timeout,
        cap=config.bash.output_cap_bytes,
    )
    text = format_bang_result(result)
    event = CommandResult(
        kind="bang",
        command=command,
        text=text,
        ok=result.exit_code == 0 and not result.timed_out,
        data={
            "command": result.command,
            "exit_code": result.exit_code,
            "stdout": result.stdout,
            "stderr": result.stderr,
            "duration_ms": result.duration_ms,
            "timed_out": result.timed_out,
        },
    )
    return event, Message.user(text)
