"""Error hierarchy, one small family per layer. Each keeps its root cause in ``__cause__``.

Cancellation (``asyncio.CancelledError``) is never wrapped in any of these.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class ConfigError(EngineError):
    """A configuration file or value is invalid; the message names the file and the key."""


class ProviderError(EngineError):
    """The model server could not be used: bad key or URL, HTTP error, broken stream, timeout."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable


class ToolError(EngineError):
    """A tool refused or failed; the message is what the model sees as ``{"ok": false, "error": ...}``."""


class PathOutsideWorkspace(ToolError):
    """A path escapes the workspace root (``..``, absolute path, symlink) or touches a protected folder."""


class PolicyDenied(EngineError):
    """A tool call was refused by the mode, the permission policy or the user."""
