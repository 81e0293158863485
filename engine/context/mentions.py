"""``@path`` mentions in a request (SPEC 3.1): the mentioned file's content is attached to the user message."""

from __future__ import annotations

import re

from engine.errors import PathOutsideWorkspace
from engine.tools.guard import Workspace

MENTION = re.compile(r"(?<!\S)@([^\s@]+)")
MAX_ATTACHED_BYTES = 100_000
_TRAILING = ".,;:!?)]}\"'"
# A problem names a mention by at most this many characters of it.
SHOWN_NAME_CHARS = 60


def expand_mentions(text: str, workspace: Workspace) -> tuple[str, list[str]]:
    """Returns the text with each mentioned file attached once, and the problems worth telling the user.

    A mention that names no file is left alone (``@decorator`` is ordinary prose). One that cannot be read (a name
    too long for the file system, no permission) is not attached and named among the problems; the request is
    still sent, with the mention as plain text."""
    attachments: list[str] = []
    problems: list[str] = []
    seen: set[str] = set()
    for match in MENTION.finditer(text):
        raw = match.group(1).rstrip(_TRAILING)
        if not raw or raw in seen:
            continue
        seen.add(raw)
        shown = raw if len(raw) <= SHOWN_NAME_CHARS else raw[: SHOWN_NAME_CHARS - 1] + "…"
        try:
            path = workspace.resolve(raw)
            if not path.is_file():
                continue
            data = path.read_bytes()
        except PathOutsideWorkspace as exc:
            problems.append(f"@{shown} not attached: {exc}")
            continue
        except OSError as exc:
            problems.append(f"@{shown} not attached: {exc.strerror or exc}")
            continue
        if b"\0" in data[:8192]:
            problems.append(f"@{shown} not attached: binary file")
            continue
        note = ""
        if len(data) > MAX_ATTACHED_BYTES:
            data = data[:MAX_ATTACHED_BYTES]
            note = f" truncated=\"first {MAX_ATTACHED_BYTES} bytes; use the read tool for the rest\""
        body = data.decode("utf-8", errors="replace")
        attachments.append(f'<file path="{workspace.display(path)}"{note}>\n{body}\n</file>')
    if not attachments:
        return text, problems
    return text + "\n\n" + "\n\n".join(attachments), problems
