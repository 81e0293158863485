"""Which session the orchestrator works in (SPEC 12, 21): a new one, a fork of one, or a stored one resumed.

Every switch claims the session's lock (one owner per session), points the undo journal, the todos, the compaction
state and the token counter at it, and remembers why it began for its SessionStart hooks. The orchestrator's
``new_session`` / ``fork_session`` / ``resume`` are these functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.context.compaction import CompactionState
from engine.events import ModeChanged, ModelChanged, Notice, TodosChanged
from engine.modes import Mode
from engine.orchestrator.outcome import TurnOutcome
from engine.orchestrator.recorder import TaskRecorder
from engine.orchestrator.session import Session
from engine.orchestrator.turn import TurnState, resume_turn
from engine.storage.recovery import repair_history

if TYPE_CHECKING:
    from engine.orchestrator.orchestrator import Orchestrator
    from engine.orchestrator.resume import ResumePlan


def session_args(orch: Orchestrator, model: str | None = None) -> dict[str, object]:
    """What every ``Session`` of this orchestrator is made with."""
    return {
        "model": model or orch.config.model,
        "tools": orch.registry.wire(),
        "emit": orch.emit,
        "store": orch.store,
        "mode": orch.policy.mode.value,
    }


def start_session(orch: Orchestrator, session: Session, *, restored: bool = False) -> Session:
    """Makes ``session`` the one in use (a new one is stored first). Raises ``SessionBusy`` when another live
    process holds it (SPEC 21)."""
    orch.session_locks.claim(session.id)
    orch.session_locks.keep_only(session.id)
    if not restored:
        orch.store.create_session(model=session.model, mode=session.mode, session_id=session.id)
    orch.undo = orch.store.undo_journal(session.id, orch.workspace.root, max_turns=orch.config.undo.max_turns)
    orch.tool_context.before_change = orch.undo.record
    orch.tool_context.known_files.clear()
    orch.tool_context.todos.replace(orch.store.load_todos(session.id) if restored else [])
    orch.compaction_state = CompactionState()
    orch.token_counter.set_model(session.model)
    orch.session_start = "resume" if restored else "startup"
    orch.session = session
    return session


def new_session(orch: Orchestrator) -> str:
    """A new, empty session with the model in use."""
    return start_session(orch, Session(orch.workspace.root, **session_args(orch, orch.session.model))).id


def fork_session(orch: Orchestrator, source_id: str | None = None) -> str:
    """Continues in a new session that starts with a copy of this one's history and todos; the original stays as it
    was, resumable by its id. ``source_id``: copy that stored session instead (``--fork``), read only, so a live
    process may hold it; its open tool calls are marked interrupted in the copy."""
    store = orch.store
    if source_id is None:
        source = orch.session
        title = store.load_session(source.id).info.title
        model, mode, messages, todos = source.model, source.mode, source.messages, orch.tool_context.todos.items
        system_prompt = source.system_prompt
    else:
        loaded = store.load_session(source_id)
        title, model, mode = loaded.info.title, loaded.info.model or orch.session.model, loaded.info.mode
        mode = mode if store.is_own(loaded.info.id) else ""  # a foreign session's mode never carries over
        messages, todos, system_prompt = tuple(repair_history(loaded.messages)[0]), None, ""
    session_id = store.create_session(model=model, mode=mode or orch.policy.mode.value, title=title)
    store.append_messages(session_id, messages)
    store.save_todos(session_id, todos if todos is not None else store.load_todos(source_id or ""))
    session = Session(orch.workspace.root, **session_args(orch, model), session_id=session_id, messages=messages)
    session.system_prompt = system_prompt
    start_session(orch, session, restored=True).save()
    return session_id


def foreign_session_notice(session_id: str, saved_mode: str, mode: str) -> str:
    """What the user is told on resuming a session their coder-tui did not make here (SPEC 19)."""
    return (
        f"session {session_id} was not made by your coder-tui in this folder (it came with the repository, or from "
        f"another machine or folder): its history is shown, but its saved mode ({saved_mode or 'none'}) and undo "
        f"history are not used; running in {mode}"
    )


async def resume_session(orch: Orchestrator, plan: ResumePlan) -> TurnOutcome:
    """Switches to a stored session (planned by ``resume.plan_resume``) and finishes the turn the process died in,
    if an approval was pending in it. Runs inside ``run_input`` (``/resume``), so Esc cancels it."""
    info = plan.loaded.info
    model = orch.config.model if orch.model_pinned else info.model or orch.session.model
    if model != info.model:
        orch.store.update_session(info.id, model=model)
    session = Session(
        orch.workspace.root,
        **session_args(orch, model),
        session_id=info.id,
        messages=plan.messages,
        seqs=plan.seqs,
        encoded=plan.encoded,
        created_at=info.created_at,
    )
    start_session(orch, session, restored=True)
    if not orch.store.is_own(info.id):
        orch.emit(Notice(foreign_session_notice(info.id, info.mode, orch.policy.mode.value), level="warning"))
    elif info.mode and not orch.mode_pinned:
        orch.policy.set_mode(Mode.parse(info.mode))
    orch.emit(ModeChanged(orch.policy.mode.value))
    orch.emit(ModelChanged(orch.session.model))
    orch.emit(TodosChanged(orch.tool_context.todos.items))
    await orch.announce_context()
    for note in plan.notes:
        orch.emit(Notice(f"resume: {note}", level="warning"))
    task_id = plan.loaded.unfinished_task_id
    if task_id is None:
        return TurnOutcome("completed")
    recorder = TaskRecorder(orch.store, info.id, task_id)
    open_message = plan.open_message
    if not plan.open_calls or open_message is None:
        recorder.task("TaskFailed", "the process stopped during this task")
        return TurnOutcome("completed")
    orch.emit(Notice("resume: asking again the approval that was pending when the process stopped"))
    recorder.task("TaskStarted", "resumed")
    return await orch.run_task(
        TurnState(turn_id=task_id, user_text=""),
        recorder,
        lambda state, deps: resume_turn(state, deps, open_message, plan.open_calls),
    )
