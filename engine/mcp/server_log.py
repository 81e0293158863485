"""A server's log file (``.coder/logs/mcp-<name>.log``): its lines, its last words, and one readable line for an
error."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import TextIO


class ServerGone(Exception):
    """The server closed the connection or its process ended."""


def describe(exc: BaseException) -> str:
    """One readable line for an error, looking inside the exception groups anyio raises."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    text = str(exc).strip()
    # The SDK's own errors and ours say enough in their message; others need their kind (a KeyError's message is
    # just the key).
    if not text or isinstance(exc, (ServerGone, TimeoutError)) or type(exc).__name__ == "MCPError":
        return text or type(exc).__name__
    return f"{type(exc).__name__}: {text}"


def last_line(path: Path, offset: int) -> str:
    """The last line the server wrote to its stderr log since ``offset`` (why a crashing server crashed)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(offset)
            tail = handle.read()[-4000:].decode("utf-8", errors="replace")
    except OSError:
        return ""
    lines = [line.strip() for line in tail.splitlines() if line.strip() and not line.startswith("--- ")]
    return lines[-1][:300] if lines else ""


def log_line(stream: TextIO, text: str, who: str = "coder-tui") -> None:
    stamp = datetime.now(timezone.utc).isoformat(timespec="seconds")
    stream.write(f"--- {stamp} {who}: {text}\n")
    stream.flush()
