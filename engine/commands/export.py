"""``/export [file]`` (SPEC 23): the whole stored history of the session written as Markdown."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from engine.commands.export_markdown import default_export_name, render_markdown
from engine.command_results import CommandFailed, ConversationExported
from engine.counted import counted
from engine.storage.atomic import write_atomic
from engine.storage.sessions.records import HistoryMessage

if TYPE_CHECKING:
    from engine.commands.context import CommandContext


async def export_command(ctx: CommandContext, arg: str) -> ConversationExported | CommandFailed:
    info = ctx.store.conversation.load(ctx.session_id).info
    history = ctx.store.conversation.history(ctx.session_id)
    # The count /fork and /resume's list give: the stored messages, every epoch's, without those /rewind cut.
    messages = info.message_count
    if not any(isinstance(entry, HistoryMessage) for entry in history):
        return CommandFailed("/export", "nothing to export: this conversation is empty")
    target = _target(ctx.workspace_root, arg, default_export_name(info.title, info.id))
    markdown = render_markdown(info.title, info.id, history)
    try:
        if target.is_dir():
            raise IsADirectoryError(f"{target} is a folder")
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, markdown.encode("utf-8"))
    except OSError as exc:
        return CommandFailed("/export", f"could not write {target}: {exc}")
    text = f"exported {counted(messages, 'message')} to {target}"
    return ConversationExported("/export", text, path=str(target), messages=messages)


def _target(root: Path, arg: str, default_name: str) -> Path:
    """The named file (relative to the workspace), or a new file named after the session's title that does not
    overwrite an earlier export."""
    if arg:
        path = Path(arg).expanduser()
        return path if path.is_absolute() else root / path
    candidate = root / default_name
    stem, number = candidate.stem, 2
    while candidate.exists():
        candidate = root / f"{stem}-{number}.md"
        number += 1
    return candidate
