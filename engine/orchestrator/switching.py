"""Which session the orchestrator works in (SPEC 12, 21): a new one, a fork of one, or a stored one resumed.

Every switch claims the session's lock (one owner per session) and replaces the runtime in view (``runtime``: the
session's undo journal, todos, compaction state, and why it began for its SessionStart hooks) with one value. The
orchestrator's ``new_session`` / ``fork_session`` / ``resume`` / ``open_session`` are these functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.events import ModeChanged, ModelChanged, Notice, TodosChanged
from engine.modes import Mode
from engine.orchestrator.outcome import TurnOutcome
from engine.orchestrator.recorder import TaskRecorder
from engine.orchestrator.runtime import AgentTree, SessionCapture, SessionRuntime
from engine.orchestrator.session import Session
from engine.orchestrator.tooling import make_tool_context
from engine.orchestrator.turn import TurnState, resume_turn
from engine.policy import PermissionPolicy
from engine.storage.sessions.recovery import repair_history
from engine.storage.undo.session_journal import open_journal

if TYPE_CHECKING:
    from engine.orchestrator.engine_parts import EngineParts
    from engine.orchestrator.resume import ResumePlan


def session_args(
    orch: EngineParts, model: str | None = None, *, policy: PermissionPolicy | None = None
) -> dict[str, object]:
    """What every ``Session`` of this orchestrator is made with. Its mode is ``policy``'s, by default the one in
    view's; its messages are announced as events of the session whose input appends them."""
    return {
        "model": model or orch.config.model,
        "tools": orch.registry.wire(),
        "emit": orch.emit,
        "store": orch.store,
        "mode": (policy or orch.policy).mode.value,
    }


def make_runtime(
    orch: EngineParts,
    session: Session,
    policy: PermissionPolicy,
    *,
    restored: bool,
    tree: AgentTree | None = None,
) -> SessionRuntime:
    """The live state of ``session``: its undo journal, its tools' todos (a restored session's stored ones) and
    files, its compaction state and loop detector, and ``policy`` for its mode and "always" answers. ``tree``: an
    agent's worktree, which is then its workspace (file tools, capture, undo) instead of the orchestrator's."""
    workspace, capture, turns = orch.workspace, orch.tool_capture, orch.capture_turns
    if tree is not None:
        workspace, capture, turns = tree.workspace, tree.capture, tree.capture_turns
    undo = open_journal(
        orch.store, session.id, workspace.root, max_turns=orch.config.undo.max_turns, objects=capture.objects
    )
    policy.always_scopes = orch.mcp.always_scopes
    tool_context = make_tool_context(orch, lambda: policy, workspace)
    tool_context.before_change = undo.record
    tool_context.todos.replace(orch.store.todos.load(session.id) if restored else [])
    return SessionRuntime(
        session=session,
        undo=undo,
        policy=policy,
        tool_context=tool_context,
        emit=orch.emitter(session.id),
        capture=SessionCapture(capture, lambda: undo, turns),
        session_start="resume" if restored else "startup",
        agent=tree.name if tree is not None else None,
        hooks=orch.hooks.at(tree.workspace.root) if tree is not None else None,
    )


def start_session(orch: EngineParts, session: Session, *, restored: bool = False) -> Session:
    """Makes ``session`` the one in view, in place of the one in view (a new one is stored first). The policy (mode
    and "always" answers) carries over. Raises ``SessionBusy`` when another live process holds it (SPEC 21)."""
    orch.session_locks.claim(session.id)
    if not restored:
        orch.store.sessions.create(model=session.model, mode=session.mode, session_id=session.id)
    orch.token_counter.set_model(session.model)
    orch.runtimes.replace_view(make_runtime(orch, session, orch.policy, restored=restored))
    return session


def open_session(orch: EngineParts) -> SessionRuntime:
    """A new, empty session beside the ones open (not in view), with its own policy in the configured mode: its
    turns run at the same time as theirs (``Orchestrator.run_input(text, session_id=...)``)."""
    policy = PermissionPolicy.for_settings(orch.config, orch.config.mode, orch.workspace.root)
    session = Session(orch.workspace.root, **session_args(orch, orch.session.model, policy=policy))
    orch.session_locks.claim(session.id)
    orch.store.sessions.create(model=session.model, mode=session.mode, session_id=session.id)
    runtime = make_runtime(orch, session, policy, restored=False)
    orch.runtimes.add(runtime)
    return runtime


def new_session(orch: EngineParts) -> str:
    """A new, empty session with the model in use."""
    return start_session(orch, Session(orch.workspace.root, **session_args(orch, orch.session.model))).id


def fork_session(orch: EngineParts, source_id: str | None = None) -> str:
    """Continues in a new session that starts with a copy of this one's history and todos; the original stays as it
    was, resumable by its id. ``source_id``: copy that stored session instead (``--fork``), read only, so a live
    process may hold it; its open tool calls are marked interrupted in the copy."""
    store = orch.store
    if source_id is None:
        source = orch.session
        title = store.conversation.load(source.id).info.title
        model, mode, messages, todos = source.model, source.mode, source.messages, orch.tool_context.todos.items
        system_prompt = source.system_prompt
    else:
        loaded = store.conversation.load(source_id)
        title, model, mode = loaded.info.title, loaded.info.model or orch.session.model, loaded.info.mode
        mode = mode if store.sessions.is_own(loaded.info.id) else ""  # a foreign session's mode never carries over
        messages, todos, system_prompt = tuple(repair_history(loaded.messages)[0]), None, ""
    session_id = store.sessions.create(model=model, mode=mode or orch.policy.mode.value, title=title)
    store.conversation.append_many(session_id, messages)
    store.todos.save(session_id, todos if todos is not None else store.todos.load(source_id or ""))
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


async def resume_session(orch: EngineParts, plan: ResumePlan) -> TurnOutcome:
    """Switches to a stored session (planned by ``resume.plan_resume``) and finishes the turn the process died in,
    if an approval was pending in it. Runs inside ``run_input`` (``/resume``), so Esc cancels it."""
    info = plan.loaded.info
    model = orch.config.model if orch.model_pinned else info.model or orch.session.model
    if model != info.model:
        orch.store.sessions.update(info.id, model=model)
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
    if not orch.store.sessions.is_own(info.id):
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
