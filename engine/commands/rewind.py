"""``/rewind`` (SPEC 23, Claude Code's gesture): pick an earlier request of this session; every file the turns from
that request on changed goes back to how it was before it (the per-turn undo journal: byte-exact, created files
removed, deleted files back), the conversation is cut just before it, and the request returns to the prompt.

``/rewind`` alone lists the requests (the TUI shows a picker); ``/rewind N`` rewinds to the N-th of that list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.events import CommandResult
from engine.messages import Message
from engine.orchestrator.session_commands import confirm_overwrite
from engine.record import record
from engine.storage.records import TaskEvent

if TYPE_CHECKING:
    from engine.orchestrator.orchestrator import Orchestrator


@record
class RewindPoint:
    """A request of this session: the task it started and where its user message sits in the conversation."""

    number: int
    task_id: str
    text: str
    index: int


def rewind_points(orch: Orchestrator) -> list[RewindPoint]:
    """The session's requests still in the conversation, oldest first. Each task's request is matched, in order, to
    the first later user message that starts with it (attachments and reminders are appended after the text)."""
    requests = [
        (record.event.task_id, record.event.detail or "")
        for record in orch.store.events(orch.session_id)
        if isinstance(record.event, TaskEvent) and record.event.type == "TaskCreated"
    ]
    messages = orch.session.messages
    points: list[RewindPoint] = []
    position = 0
    for task_id, text in requests:
        index = _find_request(messages, text, position)
        if index is None:
            continue  # compacted away, or cut by an earlier rewind
        points.append(RewindPoint(len(points) + 1, task_id, text, index))
        position = index + 1
    return points


def _find_request(messages: tuple[Message, ...], text: str, start: int) -> int | None:
    for index in range(start, len(messages)):
        message = messages[index]
        if message.role == "user" and text and (message.content or "").startswith(text):
            return index
    return None


async def rewind_command(orch: Orchestrator, arg: str) -> CommandResult:
    points = rewind_points(orch)
    if not arg:
        if not points:
            return CommandResult.slash("/rewind", "nothing to rewind: no request in this conversation yet", points=[])
        lines = [f"  {p.number:>3}  {_one_line(p.text)}" for p in points]
        text = "requests of this conversation (rewind to one with /rewind <number>):\n" + "\n".join(lines)
        rows = [{"number": p.number, "text": p.text} for p in points]
        return CommandResult.slash("/rewind", text, points=rows)
    try:
        number = int(arg)
    except ValueError:
        return CommandResult.slash("/rewind", f"/rewind takes a request number from the list, not {arg!r}", ok=False)
    chosen = next((p for p in points if p.number == number), None)
    if chosen is None:
        return CommandResult.slash(
            "/rewind", f"there is no request {number}: /rewind lists the {len(points)} of this conversation", ok=False
        )
    later = {p.task_id for p in points if p.number >= number}
    restored, problem = await _restore_files(orch, later)
    if problem:
        return CommandResult.slash("/rewind", problem, ok=False, **restored)
    kept = orch.session.messages[: chosen.index]
    orch.session.rewind_to(chosen.index)
    done = "; ".join(f"{verb} {', '.join(paths)}" for verb, paths in restored.items() if paths)
    files = done or "no file had changed since that request"
    text = f"rewound to request {number} (\"{_one_line(chosen.text)}\"): {files}. {len(kept)} messages kept."
    return CommandResult.slash(
        "/rewind",
        text,
        prompt_text=chosen.text,
        messages=[m.to_record() for m in kept],
        **restored,
    )


async def _restore_files(orch: Orchestrator, tasks: set[str]) -> tuple[dict[str, list[str]], str | None]:
    """Undoes, newest first, every turn on the undo stack that belongs to ``tasks``. Returns what was put back and,
    when something stopped it, why (turns already undone stay undone; the conversation is then left as it was)."""
    # A file several turns touched ends as the oldest of them left it: its verb is the last one seen.
    final: dict[str, str] = {}
    journal = orch.undo
    problem = None
    while (ids := journal.turn_ids()) and ids[0] in tasks:
        result = journal.undo_last_turn()
        if not result.applied and result.conflicts:
            if not await confirm_overwrite(orch, result):
                problem = f"not rewound: {result.summary()}"
                break
            result = journal.undo_last_turn(force=True)
        if not result.applied:
            problem = f"not rewound: {result.summary()}"
            break
        final.update(dict.fromkeys(result.restored, "restored"))
        final.update(dict.fromkeys(result.deleted, "deleted"))
        final.update(dict.fromkeys(result.recreated, "recreated"))
    done = {verb: sorted(p for p, v in final.items() if v == verb) for verb in ("restored", "deleted", "recreated")}
    return done, problem


def _one_line(text: str, limit: int = 70) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
