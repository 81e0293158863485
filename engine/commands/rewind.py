"""``/rewind`` (SPEC 23, Claude Code's gesture): pick an earlier request of this session; every change the turns
from that request on made to the workspace goes back to how it was before it (the per-turn undo journal: byte-exact,
shell commands' changes included, created files removed, deleted files back), the conversation is cut just before
it, and the request returns to the prompt.

``/rewind`` alone lists the requests with how many files each changed (the TUI shows a picker); ``/rewind N``
restores code and conversation to before the N-th of that list, ``/rewind N code`` only the files,
``/rewind N conversation`` only the conversation. Requests a compaction summarised are still listed (the history
is archived, not deleted): their files can be restored, their conversation is no longer the model's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.command_results import CommandFailed, ConversationRewound, FilesRewound, RewindOffered
from engine.counted import counted
from engine.messages import Message
from engine.orchestrator.session_commands import confirm_overwrite
from engine.record import record
from engine.storage.log.records import TaskEvent

if TYPE_CHECKING:
    from engine.commands.context import CommandContext


@record
class RewindPoint:
    """A request of this session: the task it started and where its user message sits in the conversation."""

    number: int
    task_id: str
    text: str
    index: int | None  # None: summarised by a compaction (archived), the conversation cannot go back there
    files: int | None = None  # paths its turn changed; None when its turn is no longer on the undo stack

    def row(self) -> dict[str, object]:
        return {"number": self.number, "text": self.text, "files": self.files, "archived": self.index is None}


SCOPES = {"": "all", "all": "all", "code": "code", "conversation": "conversation"}


def rewind_points(ctx: CommandContext) -> list[RewindPoint]:
    """The session's requests, oldest first. Each task's request is matched, in order, to the first later user
    message that starts with it (attachments and reminders are appended after the text); one no longer in the
    conversation that comes before the first one still there was summarised by a compaction."""
    requests = [
        (record.event.task_id, record.event.detail or "")
        for record in ctx.store.events.load(ctx.session_id)
        if isinstance(record.event, TaskEvent) and record.event.type == "TaskCreated"
    ]
    messages = ctx.session.messages
    files = ctx.undo.files_changed()
    compacted = ctx.store.conversation.compactions(ctx.session_id) > 0
    points: list[RewindPoint] = []
    position = 0
    for task_id, text in requests:
        index = _find_request(messages, text, position)
        if index is None and (position > 0 or not compacted):
            continue  # cut by an earlier rewind
        points.append(RewindPoint(len(points) + 1, task_id, text, index, files.get(task_id)))
        if index is not None:
            position = index + 1
    return points


def _find_request(messages: tuple[Message, ...], text: str, start: int) -> int | None:
    for index in range(start, len(messages)):
        message = messages[index]
        if message.role == "user" and text and (message.content or "").startswith(text):
            return index
    return None


async def rewind_command(
    ctx: CommandContext, arg: str
) -> RewindOffered | ConversationRewound | FilesRewound | CommandFailed:
    points = rewind_points(ctx)
    if not arg:
        if not points:
            return RewindOffered("/rewind", "nothing to rewind: no request in this conversation yet", ())
        lines = [f"  {p.number:>3}  {_files(p):<26} {_one_line(p.text)}" for p in points]
        text = (
            "requests of this conversation (/rewind <number> [code|conversation]; default: both):\n" + "\n".join(lines)
        )
        return RewindOffered("/rewind", text, tuple(p.row() for p in points))
    number_text, _, scope_text = arg.partition(" ")
    scope = SCOPES.get(scope_text.strip().lower())
    try:
        number = int(number_text)
    except ValueError:
        number = None
    if number is None or scope is None:
        return CommandFailed(
            "/rewind", f"/rewind takes a request number and optionally code or conversation, not {arg!r}"
        )
    chosen = next((p for p in points if p.number == number), None)
    if chosen is None:
        return CommandFailed(
            "/rewind", f"there is no request {number}: /rewind lists the {len(points)} of this conversation"
        )
    if chosen.index is None and scope != "code":
        return CommandFailed(
            "/rewind",
            f"request {number} was summarised by a compaction: its conversation cannot come back, only its files "
            f"(/rewind {number} code)",
        )
    restored: dict[str, tuple[str, ...]] = {}
    missed: list[str] = []
    if scope != "conversation":
        later = {p.task_id for p in points if p.number >= number}
        restored, missed, problem = await _restore_files(ctx, later)
        if problem:
            return FilesRewound("/rewind", problem, **restored, ok=False)
    done = "; ".join(f"{verb} {', '.join(paths)}" for verb, paths in restored.items() if paths)
    files = done or "no file had changed since that request"
    if missed:
        files += f". Not put back: {'; '.join(missed)}"
    name = f'request {number} ("{_one_line(chosen.text)}")'
    if scope == "code":
        ctx.note_to_model(f"[The user put the files back as they were before an earlier request: {files}]")
        return FilesRewound("/rewind", f"restored the files to before {name}: {files}.", **restored)
    assert chosen.index is not None
    kept = ctx.session.messages[: chosen.index]
    ctx.session.rewind_to(chosen.index)
    what = "the conversation (files untouched)" if scope == "conversation" else files
    text = f"rewound to {name}: {what}. {counted(len(kept), 'message')} kept."
    return ConversationRewound(
        "/rewind",
        text,
        chosen.text,
        tuple(m.to_record() for m in kept),
        restored=restored.get("restored", ()),
        deleted=restored.get("deleted", ()),
        recreated=restored.get("recreated", ()),
    )


def _files(point: RewindPoint) -> str:
    archived = " (compacted)" if point.index is None else ""
    if point.files is None:
        return "no file change" + archived
    return f"{point.files} file{'s' if point.files != 1 else ''}{archived}"


async def _restore_files(
    ctx: CommandContext, tasks: set[str]
) -> tuple[dict[str, tuple[str, ...]], list[str], str | None]:
    """Undoes, newest first, every turn on the undo stack that belongs to ``tasks``. Returns what was put back and,
    when something stopped it, why (turns already undone stay undone; the conversation is then left as it was)."""
    # A file several turns touched ends as the oldest of them left it: its verb is the last one seen.
    final: dict[str, str] = {}
    missed: list[str] = []
    journal = ctx.undo
    problem = None
    while (ids := journal.turn_ids()) and ids[0] in tasks:
        result = journal.undo_last_turn()
        if not result.applied and result.conflicts:
            if not await confirm_overwrite(ctx, result):
                problem = f"not rewound: {result.summary()}"
                break
            result = journal.undo_last_turn(force=True)
        if not result.applied:
            problem = f"not rewound: {result.summary()}"
            break
        missed.extend(result.not_captured)
        final.update(dict.fromkeys(result.restored, "restored"))
        final.update(dict.fromkeys(result.deleted, "deleted"))
        final.update(dict.fromkeys(result.recreated, "recreated"))
    verbs = ("restored", "deleted", "recreated")
    done = {verb: tuple(sorted(p for p, v in final.items() if v == verb)) for verb in verbs}
    return done, missed, problem


def _one_line(text: str, limit: int = 70) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
