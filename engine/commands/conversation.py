"""Commands about the conversation as a whole (SPEC 23): ``/clear``, ``/fork``, ``/copy``, ``/quit`` and ``/exit``.

They return data, never act on a screen: ``/copy`` hands the text to the front end, which puts it on the clipboard;
``/quit`` asks the front end to exit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.command_results import CommandFailed, CopyRequested, ExitRequested, SessionForked, SessionStarted
from engine.counted import counted
from engine.storage.errors import UnknownSession

if TYPE_CHECKING:
    from engine.commands.context import CommandContext


async def clear_command(ctx: CommandContext, arg: str) -> SessionStarted:
    """A new, empty conversation; the previous one stays in the database and ``/resume`` brings it back."""
    previous = ctx.session_id
    session_id = ctx.new_session()
    text = f"new conversation {session_id} (the previous one, {previous}, stays resumable: /resume {previous})"
    return SessionStarted("/clear", text, session_id, previous)


async def fork_command(ctx: CommandContext, arg: str) -> SessionForked | CommandFailed:
    """A new session carrying this one's history; the original stays as it was and can be resumed. ``/fork <id>``
    (``--last``: the latest) copies a stored session instead, also one another process has open (``--fork``)."""
    original = ctx.session_id
    try:
        if arg:
            original = ctx.store.sessions.latest_id() if arg == "--last" else ctx.store.sessions.resolve(arg)
            if original is None:
                return CommandFailed("/fork", "no saved session in this workspace yet")
        session_id = ctx.fork_session(original if arg else None)
    except UnknownSession as exc:
        return CommandFailed("/fork", str(exc))
    await ctx.announce_context()  # the copied history's size, as after a resume
    # The count /export and /resume's list give for the original; a compacted one's copy is its context.
    stored, copied = ctx.store.conversation.load(original).info.message_count, len(ctx.session.messages)
    held = f" (the copy holds the model's context: {copied} since its last compaction)" if copied < stored else ""
    text = f"forked into session {session_id} with {counted(stored, 'message')}{held} (the original, {original}: " \
        f"/resume {original})"
    records = tuple(m.to_record() for m in ctx.session.messages)
    return SessionForked("/fork", text, session_id, original, records)


def assistant_answers(ctx: CommandContext) -> list[str]:
    """The text of every assistant answer of this conversation, oldest first (tool-call-only messages left out)."""
    return [m.content for m in ctx.session.messages if m.role == "assistant" and (m.content or "").strip()]


async def copy_command(ctx: CommandContext, arg: str) -> CopyRequested | CommandFailed:
    """``/copy``: the last answer; ``/copy N``: the N-th latest (``/copy 1`` is the last)."""
    answers = assistant_answers(ctx)
    try:
        nth = int(arg) if arg else 1
    except ValueError:
        return CommandFailed("/copy", f"/copy takes a number (1 is the last answer), not {arg!r}")
    if not answers:
        text = "nothing to copy: the model has not answered in this conversation"
        return CommandFailed("/copy", text)
    if not 1 <= nth <= len(answers):
        return CommandFailed("/copy", f"there is no answer {nth}: this conversation has {len(answers)} (1 is the last)")
    text = answers[-nth]
    lines = text.count("\n") + 1
    which = "the last answer" if nth == 1 else f"answer {nth} (counting back from the last)"
    size = f"{counted(len(text), 'character')}, {counted(lines, 'line')}"
    return CopyRequested("/copy", f"copied {which} to the clipboard ({size})", text)


async def quit_command(ctx: CommandContext, arg: str) -> ExitRequested:
    return ExitRequested("/quit", "goodbye", ctx.session_id)
