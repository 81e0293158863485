"""``@path`` mentions in a request (SPEC 3.1, 23): a mentioned file's content is attached to the user message, a
mentioned folder's listing (one level, as the ``list`` tool gives it), and an image (png, jpeg, gif, webp) is
returned apart, to go with the message as an image part. A mention that cannot be attached always says why;
one that names nothing path-like (``@decorator``, ``@team``) is ordinary prose and left alone."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from engine.context.user_images import user_image_path
from engine.counted import counted
from engine.errors import PathOutsideWorkspace, ToolError
from engine.tools.fileio import open_regular
from engine.tools.guard import PROTECTED_DIR, Workspace
from engine.tools.list_dir import folder_entries

MENTION = re.compile(r"(?<!\S)@([^\s@]+)")
MAX_ATTACHED_BYTES = 100_000
MAX_LISTED_ENTRIES = 200
IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
               ".webp": "image/webp"}
_TRAILING = ".,;:!?)]}\"'"
# A mention that looks like a path: it has a folder separator or a file extension.
_PATH_LIKE = re.compile(r"/|\.[A-Za-z0-9]{1,10}$")
# A problem names a mention by at most this many characters of it.
SHOWN_NAME_CHARS = 60


@dataclass
class Mentions:
    """What the mentions of one request give: the text with attachments, the images, and the problems."""

    text: str
    problems: list[str] = field(default_factory=list)
    images: list[Path] = field(default_factory=list)
    # What was attached, for the user: "src/util.py, 40 lines", "src/ (12 entries)".
    attached: list[str] = field(default_factory=list)


def collect_mentions(text: str, workspace: Workspace) -> Mentions:
    """The text with each mentioned file or folder attached once, the mentioned images, and the problems worth
    telling the user. One that cannot be read (a name too long for the file system, no permission) is not attached
    and named among the problems; the request is still sent, with the mention as plain text. It touches the disk:
    callers on the event loop run it in a thread (``prepare_turn_state``)."""
    attachments: list[str] = []
    result = Mentions(text)
    seen: set[str] = set()
    for match in MENTION.finditer(text):
        raw = match.group(1).rstrip(_TRAILING)
        if not raw or raw in seen:
            continue
        seen.add(raw)
        shown = raw if len(raw) <= SHOWN_NAME_CHARS else raw[: SHOWN_NAME_CHARS - 1] + "…"
        try:
            if Path(raw).suffix.lower() in IMAGE_TYPES:
                path = user_image_path(raw, workspace)  # the same rule as a pasted image path
            else:
                path = workspace.resolve(raw)
                workspace.refuse_coder_state(path, raw)  # coder's own state is never attached, as list never shows it
        except PathOutsideWorkspace as exc:
            result.problems.append(f"@{shown} not attached: {exc}")
            continue
        except OSError as exc:
            result.problems.append(f"@{shown} not attached: {exc.strerror or exc}")
            continue
        try:
            if path.is_dir():
                attachments.append(_listing(path, workspace))
                result.attached.append(_described(attachments[-1], workspace.display(path).rstrip("/") + "/"))
            elif path.is_file() and path.suffix.lower() in IMAGE_TYPES:
                result.images.append(path)
            elif path.is_file():
                attachments.append(_file(path, workspace))
                result.attached.append(_described(attachments[-1], workspace.display(path)))
            elif _PATH_LIKE.search(raw):
                result.problems.append(f"@{shown} not attached: no such file or folder in the workspace")
        except _NotAttached as exc:
            result.problems.append(f"@{shown} not attached: {exc}")
        except (OSError, ToolError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            result.problems.append(f"@{shown} not attached: {reason}")
    if attachments:
        result.text = text + "\n\n" + "\n\n".join(attachments)
    return result


def _described(attachment: str, shown: str) -> str:
    """An attachment as the user is told of it: its name and how much of it went."""
    if attachment.startswith("<folder"):
        entries = attachment.partition('entries="')[2].partition('"')[0]
        return f"{shown} ({counted(entries, 'entry')})"
    body = attachment.partition("\n")[2].rpartition("\n</file>")[0]
    lines = body.count("\n") + (1 if body and not body.endswith("\n") else 0)
    cut = " (truncated)" if ' truncated="' in attachment.partition("\n")[0] else ""
    return f"{shown}, {lines} line{'s' if lines != 1 else ''}{cut}"


class _NotAttached(ValueError):
    pass


def _file(path: Path, workspace: Workspace) -> str:
    """At most ``MAX_ATTACHED_BYTES`` of the file, read from a descriptor opened where the guard checked it (no
    symlink swapped in, no FIFO or device): a 6 GB log costs what its first 100 kB cost."""
    display = workspace.display(path)
    with open_regular(path, display) as handle:
        size = os.fstat(handle.fileno()).st_size
        data = handle.read(MAX_ATTACHED_BYTES + 1)
    if b"\0" in data[:8192]:
        raise _NotAttached("binary file (images: png, jpeg, gif or webp)")
    note = ""
    if len(data) > MAX_ATTACHED_BYTES:
        data = data[:MAX_ATTACHED_BYTES]
        note = (
            f" truncated=\"first {MAX_ATTACHED_BYTES} of {size} bytes; use the read tool for the rest\""
        )
    body = data.decode("utf-8", errors="replace")
    return f'<file path="{workspace.display(path)}"{note}>\n{body}\n</file>'


def _listing(path: Path, workspace: Workspace) -> str:
    display = workspace.display(path).rstrip("/") + "/"
    entries = folder_entries(path, display)
    if path == workspace.root:
        entries = [entry for entry in entries if entry != f"{PROTECTED_DIR}/"]
    note = ""
    if len(entries) > MAX_LISTED_ENTRIES:
        note = f" truncated=\"first {MAX_LISTED_ENTRIES} of {len(entries)} entries; use the list tool for more\""
        entries = entries[:MAX_LISTED_ENTRIES]
    body = "\n".join(entries) if entries else "(empty folder)"
    return f'<folder path="{display}" entries="{len(entries)}"{note}>\n{body}\n</folder>'
