"""The slash commands about the session itself (SPEC 7): /new, /resume, /undo, /diff."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from engine.command_results import (
    ChangesUndone,
    CommandFailed,
    DiffShown,
    SessionRenamed,
    SessionResumed,
    SessionsListed,
    SessionStarted,
)
from engine.interaction import QuestionRequest
from engine.orchestrator.outcome import TurnOutcome
from engine.orchestrator.resume import ResumePlan, history_restored, plan_resume
from engine.storage.errors import UnknownSession
from engine.storage.sessions.lock import SessionBusy
from engine.storage.session_search import search_sessions
from engine.storage.undo.journal import UndoResult
from engine.storage.undo.workspace_diff import collect_workspace_diff

if TYPE_CHECKING:
    from engine.commands.context import CommandContext

UNDO_ANYWAY = "Undo anyway (overwrite those changes)"
KEEP = "Keep the files as they are"


async def new_command(ctx: CommandContext, arg: str) -> SessionStarted:
    session_id = ctx.new_session()
    return SessionStarted("/new", f"new session {session_id}", session_id)


async def resume_command(ctx: CommandContext, arg: str) -> SessionsListed | CommandFailed | TurnOutcome:
    """``/resume`` lists recent sessions (the TUI shows a picker); ``/resume <id>`` or ``/resume --last`` restores
    one and finishes its interrupted turn, if an approval was pending in it; ``/resume <words>`` (no session has
    that id) lists the sessions that mention them (the picker opens with them typed in its search field)."""
    if arg and arg != "--last":
        try:
            ctx.store.sessions.resolve(arg)
        except UnknownSession as unknown:
            return _found_sessions(ctx, arg, unknown)
    if not arg:
        sessions = ctx.store.sessions.summaries(limit=20)
        if not sessions:
            return SessionsListed("/resume", "no saved session in this workspace yet", ())
        own = {s.id: ctx.store.sessions.is_own(s.id) for s in sessions}
        lines = [
            f"  {s.id}  {s.updated_at}  {s.message_count:>4} messages  {s.title}"
            + (f"  ({s.origin})" if s.origin != "tui" else "")
            + ("" if own[s.id] else "  (not made by you here: its mode and undo are not used)")
            for s in sessions
        ]
        text = "recent sessions (resume one with /resume <id>):\n" + "\n".join(lines)
        rows = tuple(
            {"id": s.id, "title": s.title, "updated_at": s.updated_at, "message_count": s.message_count,
             "own": own[s.id], "origin": s.origin}
            for s in sessions
        )
        return SessionsListed("/resume", text, rows)
    session_ref = arg
    if arg == "--last":
        latest = ctx.store.sessions.latest_id()
        if latest is None:
            return CommandFailed("/resume", "no saved session in this workspace yet")
        session_ref = latest
    shown, ctx.history_shown = ctx.history_shown, None
    try:
        # The lock first: repairing the history writes to the session, which another live process may own.
        session_id = ctx.store.sessions.resolve(session_ref)
        ctx.session_locks.claim(session_id)
        # A screen shows the whole history (at once, while the session is planned), unless it already does.
        if ctx.interactive and shown != session_id:
            ctx.emit(history_restored(ctx.store, session_id))
            await asyncio.sleep(0)  # a front end in another process gets it now, not after the planning
        plan = plan_resume(ctx.store, session_ref)
    except (UnknownSession, SessionBusy) as exc:
        ctx.keep_open_locks()
        return CommandFailed("/resume", str(exc))
    except BaseException:
        # Planning failed otherwise (a storage error, a cancel): the session in use stays, and the lock claimed
        # for the switch (or the one the engine opened with) goes, so another process may open that session.
        ctx.keep_open_locks()
        raise
    info = plan.loaded.info
    ctx.emit(
        SessionResumed(
            "/resume",
            f"resumed session {info.id}: {info.title or '(untitled)'} ({_message_counts(info.message_count, plan)})",
            info.id,
        )
    )
    return await ctx.resume(plan)


def _found_sessions(ctx: CommandContext, words: str, unknown: UnknownSession) -> SessionsListed | CommandFailed:
    """The sessions whose messages mention ``words``; when none does, ``unknown`` says what to do."""
    hits = search_sessions(ctx.workspace_root, words)
    if not hits:
        return CommandFailed("/resume", f"{unknown} No message mentions {words!r} either.")
    sessions = ctx.store.sessions.summaries(20)
    rows = tuple(
        {"id": s.id, "title": s.title, "updated_at": s.updated_at, "message_count": s.message_count,
         "own": ctx.store.sessions.is_own(s.id), "origin": s.origin}
        for s in sessions
    )
    lines = [f"  {hit.session_id}  {hit.updated_at}  {hit.title}" for hit in hits]
    text = f"sessions mentioning {words!r} (resume one with /resume <id>):\n" + "\n".join(lines)
    return SessionsListed("/resume", text, rows, query=words)


async def rename_command(ctx: CommandContext, arg: str) -> SessionRenamed | CommandFailed:
    """``/rename <title>`` names the session in view; ``/rename --session <id> <title>`` another one of the
    workspace (the picker's rename key)."""
    session_ref, title = ctx.session_id, arg
    if arg.startswith("--session "):
        session_ref, _, title = arg.removeprefix("--session ").strip().partition(" ")
    title = " ".join(title.split())
    if not title:
        return CommandFailed("/rename", "give the new title: /rename <title>")
    try:
        session_id = ctx.store.sessions.resolve(session_ref)
        ctx.store.sessions.rename(session_id, title)
    except UnknownSession as exc:
        return CommandFailed("/rename", str(exc))
    return SessionRenamed("/rename", f"session {session_id} is now titled {title!r}", session_id, title)


def _message_counts(stored: int, plan: ResumePlan) -> str:
    """The same count ``/resume``'s list gives, and the model's context when a compaction made it smaller."""
    in_context = len(plan.messages)
    if stored <= in_context:
        return f"{in_context} messages"
    return f"{stored} messages; the model's context holds {in_context} since its last compaction"


async def undo_command(ctx: CommandContext, arg: str) -> ChangesUndone:
    result = ctx.undo.undo_last_turn()
    if not result.applied and result.conflicts:
        if not await confirm_overwrite(ctx, result):
            return ChangesUndone("/undo", result.summary(), conflicts=result.conflicts, ok=False)
        result = ctx.undo.undo_last_turn(force=True)
    if not result.applied:
        ok = not result.errors and not result.conflicts and result.turn_id is None
        return ChangesUndone("/undo", result.summary(), errors=result.errors, ok=ok)
    ctx.note_to_model(
        "[The user undid the file changes of an earlier turn; the files are back as they were before it: "
        f"{result.summary()}]"
    )
    return ChangesUndone(
        "/undo",
        result.summary(),
        restored=result.restored,
        deleted=result.deleted,
        recreated=result.recreated,
        remaining=result.remaining,
    )


async def confirm_overwrite(ctx: CommandContext, result: UndoResult) -> bool:
    """Files changed outside the agent since the turn: the user decides; a headless run never overwrites them."""
    if not ctx.interactive:
        return False
    answer = await ctx.interaction.ask_question(
        QuestionRequest(
            question="These files changed after that turn, outside the agent: "
            f"{', '.join(result.conflicts)}. Undo anyway and lose those changes?",
            options=(UNDO_ANYWAY, KEEP),
            allow_input=False,
        )
    )
    return answer.answer == UNDO_ANYWAY


async def diff_command(ctx: CommandContext, arg: str) -> DiffShown:
    diff = await asyncio.to_thread(collect_workspace_diff, ctx.workspace_root, ctx.undo)
    if not diff.files:
        text = diff.note or ("no changes" if diff.source == "git" else "this session's tools changed no file")
        return DiffShown("/diff", text, diff.source, (), "", diff.note)
    width = max(len(f.path) for f in diff.files)
    lines = [
        f"  {f.path.ljust(width)}  +{f.added} -{f.removed}  {f.status}" for f in diff.files
    ]
    origin = "git diff" if diff.source == "git" else "changes made by this session's tools"
    header = f"{origin}: {len(diff.files)} file(s), +{diff.added} -{diff.removed}"
    text = "\n".join([header, *lines] + ([diff.note] if diff.note else []))
    files = tuple(
        {"path": f.path, "added": f.added, "removed": f.removed, "status": f.status, "binary": f.binary}
        for f in diff.files
    )
    return DiffShown("/diff", text, diff.source, files, diff.text, diff.note)
