"""What the engine appends to a user's request before the model reads it (an attached file or folder, an MCP
resource, a hook's context, a system reminder), each block after a blank line, at the end of the text. A resumed
transcript, the export and ACP's replay show the user's own words apart from these blocks, as the live run did."""

from __future__ import annotations

import re

# The tags of the blocks (``engine.context.mentions``, ``engine.mcp.resources``, ``engine.orchestrator.steps.prepare``).
ADDED_TAGS = ("file", "folder", "resource", "hook-context", "system-reminder")
_ADDED_TAIL = re.compile(r"(?:\n\n<(" + "|".join(ADDED_TAGS) + r")(?:\s[^>\n]*)?>\n.*?\n</\1>)+\s*\Z", re.DOTALL)


def split_added(content: str) -> tuple[str, str]:
    """A user message's text as (the user's own words, the blocks the engine added after them: "" for none)."""
    for match in re.finditer(r"\n\n<", content):
        if _ADDED_TAIL.fullmatch(content, match.start()):
            return content[: match.start()], content[match.start():].strip()
    return content, ""
