"""The ACP server (SPEC 24): a second protocol adapter on the engine's serving loop (``engine.server.host``)."""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import sys
from pathlib import Path

from engine.server.stdio import protocol_stdout

LOG_FOLDER = Path(".coder") / "logs"
# A prompt with embedded files can be large; the SDK's default stdio buffer is 64 KiB.
MESSAGE_LIMIT_BYTES = 50 * 1024 * 1024


def serve() -> int:
    """Runs the agent on stdin/stdout until the client closes stdin. Stdout carries only protocol messages (fd 1
    and ``sys.stdout`` point at stderr meanwhile); the log goes to ``.coder/logs/acp.log`` of the folder it was
    started in when that folder is a project (has ``.coder/``), else to stderr, which editors keep as the agent's
    log. Exit status 2, with a line on stderr, when stdin or stdout is something the protocol cannot run over."""
    if problem := _stdio_problem():
        print(f"coder-tui acp: {problem}", file=sys.stderr)
        return 2
    protocol_fd = protocol_stdout()
    _log_to_file()
    return asyncio.run(_serve(protocol_fd))


async def _serve(protocol_fd: int) -> int:
    from acp import run_agent

    from engine.server.acp.agent import CoderAgent

    from acp import stdio_streams

    # The SDK takes its write pipe from ``sys.stdout``: hand it the private copy of the real stdout, just for that.
    stray_output = sys.stdout
    sys.stdout = os.fdopen(protocol_fd, "wb", buffering=0)
    try:
        reader, writer = await stdio_streams(limit=MESSAGE_LIMIT_BYTES)
    finally:
        sys.stdout = stray_output
    agent = CoderAgent()
    try:
        # session/close and session/resume are still marked unstable in the SDK: served all the same (SPEC 24).
        await run_agent(agent, writer, reader, use_unstable_protocol=True)
    finally:
        await agent.aclose()
    return 0


def _stdio_problem() -> str | None:
    """Why stdin or stdout cannot carry the protocol, if one cannot: the SDK reads and writes them as streams (a
    pipe, a socket or a terminal), which a redirect to a regular file (``coder-tui acp > file``) is not."""
    for fd, name in ((0, "stdin"), (1, "stdout")):
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            return f"{name} is closed; an editor (Zed, a JetBrains IDE, Toad) starts the agent with pipes on both"
        if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)):
            return (f"{name} is a file, not a pipe: the Agent Client Protocol runs over pipes, which an editor (Zed, "
                    "a JetBrains IDE, Toad) gives the agent it starts")
    return None


def _log_to_file() -> None:
    handler: logging.Handler
    if _state_folder_usable(Path.cwd()):
        folder = Path.cwd() / LOG_FOLDER
        folder.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(folder / "acp.log", encoding="utf-8")
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler])


def _state_folder_usable(workspace: Path) -> bool:
    """A ``.coder`` that exists and is this user's own folder (never one linked elsewhere: SPEC 19)."""
    from engine.storage.errors import StorageError
    from engine.storage.state_folder import check_state_folder

    try:
        return check_state_folder(workspace)
    except StorageError:
        return False
