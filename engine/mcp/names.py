"""Tool and command names for MCP tools: ``mcp__<server>__<tool>``, cleaned to what OpenAI-compatible servers accept
(``^[a-zA-Z0-9_-]+$``, at most 64 characters) and unique within the session."""

from __future__ import annotations

import hashlib
import re

PREFIX = "mcp"
MAX_NAME = 64
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def clean(part: str) -> str:
    """A server or tool name with every character outside ``[a-zA-Z0-9_-]`` replaced by ``_``."""
    return _UNSAFE.sub("_", part) or "_"


def qualified_name(server: str, item: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    """``mcp__<server>__<item>``, cleaned; shortened with a hash of the original when too long, and given a hash
    suffix when the cleaned name is already ``taken`` (two names that differ only in characters cleaned away)."""
    name = f"{PREFIX}__{clean(server)}__{clean(item)}"
    if len(name) <= MAX_NAME and name not in taken:
        return name
    digest = hashlib.sha1(f"{server}\0{item}".encode()).hexdigest()
    for length in (8, 12, 40):
        candidate = f"{name[: MAX_NAME - length - 1]}_{digest[:length]}"
        if candidate not in taken:
            return candidate
    raise ValueError(f"cannot make a unique tool name for {server}/{item}")


def server_pattern(server: str) -> str:
    """The ``permissions.tools`` pattern that covers every tool of a server."""
    return f"{PREFIX}__{clean(server)}__*"
