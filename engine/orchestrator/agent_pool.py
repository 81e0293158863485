"""The agents of one engine (SPEC 26): each a session open beside the main one, on a git worktree of its own, with
the same model and the main session's mode unless one is given, running its task at the same time as the others.

``AgentPool.spawn`` makes the worktree and the session and starts the task; at most ``agents.max_running`` run at
once, the others wait their turn (``queued``). The pool follows each agent's events (approvals open, todos, tokens)
for its state, keeps its record in the database (``engine.storage.agent_table``) and announces every change as
``AgentsChanged``. An agent that finishes has its work committed on its branch.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.agents.records import AgentRecord, AgentState
from engine.agents.worktree import (
    BRANCH_PREFIX,
    Worktree,
    WorktreeError,
    add_worktree,
    check_name,
    commit_all,
    free_name,
    remove_if_untouched,
    remove_worktree,
    worktree_path,
)
from engine.capture.tool_capture import ToolCapture
from engine.events import (
    AgentsChanged,
    ErrorEvent,
    Event,
    TodosChanged,
    ToolCallAwaitingApproval,
    ToolCallExecuting,
    ToolCallFinished,
    UsageUpdated,
)
from engine.modes import Mode
from engine.orchestrator.resume import plan_resume
from engine.orchestrator.runtime import AgentTree
from engine.orchestrator.session import Session
from engine.orchestrator.switching import make_runtime, session_args
from engine.policy import PermissionPolicy
from engine.storage.agent_table import delete_agent, load_agents, save_agent
from engine.storage.state_folder import ensure_state_folder
from engine.storage.undo.session_journal import undo_objects
from engine.tools.guard import Workspace

if TYPE_CHECKING:
    from engine.orchestrator.engine_parts import EngineParts
    from engine.orchestrator.runtime import SessionRuntime

STOPPED_WITH_ENGINE = "the engine stopped while it ran"
# Commands that put another session in view in place of the one there: never in an agent's view.
_SWITCHING_COMMANDS = frozenset({"/new", "/clear", "/resume", "/fork"})
# What an agent's outcome makes of it.
_ENDED = {"completed": AgentState.DONE, "cancelled": AgentState.CANCELLED, "refused": AgentState.CANCELLED}


class AgentPool:
    def __init__(self, orch: EngineParts, *, clock: Callable[[], float] = time.time) -> None:
        self._orch = orch
        self._now = clock
        self._agents = {a.name: a for a in map(self._restored, load_agents(orch.store)) if a is not None}
        self._runtimes: dict[str, SessionRuntime] = {}
        self._trees: dict[str, AgentTree] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._by_session: dict[str, str] = {}
        self._slots: asyncio.Semaphore | None = None
        self._closing = False
        # The session that was in view when an agent's was shown (``show``), to go back to.
        self._main: SessionRuntime | None = None
        # ``AgentsChanged`` is the engine's own event, of no session: every view shows the agents.
        self._announce_engine = orch.emitter(None)
        orch.subscribe_tagged(self._follow)

    # -- what commands read -----------------------------------------------------------------------------------------
    def records(self) -> list[AgentRecord]:
        return list(self._agents.values())

    def rows(self) -> tuple[dict[str, Any], ...]:
        now = self._now()
        return tuple(agent.row(now) for agent in self._agents.values())

    def get(self, name: str) -> AgentRecord:
        agent = self._agents.get(name)
        if agent is None:
            known = ", ".join(self._agents) or "none yet (start one with /spawn <task>)"
            raise WorktreeError(f"no agent named {name!r}; agents: {known}")
        return agent

    def main_runtime(self) -> SessionRuntime:
        """The main session: the one in view, or the one an agent's view was opened from."""
        return self._main or self._orch.runtimes.view

    def input_runtime(self, in_view: SessionRuntime, text: str) -> SessionRuntime | None:
        """Which session runs an input typed in the agent's view ``in_view``: a command runs in the main one, beside
        the agent's own work (and acts on the session in view); a request goes to the agent, unless it is working
        (None, said as an error)."""
        command = text.lstrip().partition(" ")[0].lower()
        if command in _SWITCHING_COMMANDS:
            in_view.emit(ErrorEvent(f"{command} changes the main session: go back to it first (/agents main)"))
            return None
        if command.startswith("/"):
            return self.main_runtime()
        if in_view.busy:
            in_view.emit(ErrorEvent(f"agent {in_view.agent} is working: wait for it to finish, or Esc to cancel it"))
            return None
        return in_view

    # -- what commands do -------------------------------------------------------------------------------------------
    async def spawn(self, task: str, mode: Mode | None = None, name: str | None = None) -> AgentRecord:
        """Makes the agent's worktree and session and starts ``task`` there (``WorktreeError`` outside a git
        repository, without a commit, or when git fails)."""
        orch = self._orch
        name = check_name(name) if name else free_name(orch.workspace.root, task, taken=set(self._agents))
        if name in self._agents:
            raise WorktreeError(f"an agent named {name!r} exists already: choose another name")
        worktree = await asyncio.to_thread(add_worktree, orch.workspace.root, name, orch.env)
        try:
            runtime = self._start_session(name, task, worktree, mode or orch.runtime.policy.mode)
        except Exception as exc:
            self._close_session(name)
            _, what = await self._remove_unused(worktree)
            raise WorktreeError(f"agent {name} could not start: {exc}; {what}") from exc
        ahead = sum(other.state.running for other in self._agents.values())
        agent = AgentRecord(
            name=name,
            task=task,
            session_id=runtime.id,
            parent_session_id=orch.session_id,
            root=str(worktree.root),
            workspace=str(worktree.workspace),
            branch=worktree.branch,
            base_commit=worktree.base_commit,
            mode=runtime.policy.mode.value,
            # Queued only behind ``agents.max_running`` others; else its task takes a slot at once.
            state=AgentState.QUEUED if ahead >= orch.config.agents.max_running else AgentState.WORKING,
            started_at=self._now(),
        )
        self._set(agent)
        self._tasks[name] = asyncio.create_task(self._run(name, runtime, task), name=f"agent {name}")
        return agent

    def cancel(self, name: str) -> bool:
        """Stops the agent ``name`` (its stream, its commands, its open approval), or its place in the queue."""
        agent = self.get(name)
        if not agent.state.running:
            return False
        runtime = self._runtimes.get(name)
        if runtime is not None and runtime.cancel():
            return True
        task = self._tasks.get(name)
        return task is not None and task.cancel()

    def cancel_all(self) -> int:
        return sum(self.cancel(agent.name) for agent in list(self._agents.values()) if agent.state.running)

    async def wait(self, name: str) -> AgentRecord:
        """The agent's record once its task has ended."""
        task = self._tasks.get(name)
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(task)
        return self.get(name)

    def show(self, name: str | None) -> SessionRuntime:
        """Puts the agent ``name``'s session in view (None: back to the main session); returns it."""
        runtimes = self._orch.runtimes
        if name is None:
            target = self._main or runtimes.view
            self._main = None
        else:
            found = self._runtimes.get(name) or self._reopen(self.get(name))
            if runtimes.view.agent is None:
                self._main = runtimes.view
            target = found
        runtimes.show(target)
        return target

    def keep(self, name: str) -> AgentRecord:
        """Forgets the agent ``name`` but leaves its worktree and branch as they are."""
        return self._forget(name)

    async def discard(self, name: str) -> AgentRecord:
        """Removes the agent's worktree (and what is uncommitted in it) and deletes its branch."""
        agent = self.get(name)
        if agent.state.running:
            raise WorktreeError(f"agent {name} is still {agent.state.value}: cancel it first (/agents cancel {name})")
        orch = self._orch
        await asyncio.to_thread(remove_worktree, orch.workspace.root, Path(agent.root), agent.branch, orch.env)
        return self._forget(name)

    async def commit_work(self, name: str) -> None:
        """Commits on its branch what the agent ``name`` left uncommitted in its worktree (it was cancelled, or
        failed), so its branch holds all of its work."""
        agent = self.get(name)
        if Path(agent.root).is_dir():
            await asyncio.to_thread(commit_all, Path(agent.root), f"{name}: {agent.task} (left uncommitted)",
                                    self._orch.env)

    async def aclose(self) -> None:
        """Cancels the agents that run or wait, and closes their captures."""
        self._closing = True
        tasks = [task for task in self._tasks.values() if not task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for tree in self._trees.values():
            tree.capture.close()

    # -- inside -----------------------------------------------------------------------------------------------------
    def _start_session(self, name: str, task: str, worktree: Worktree, mode: Mode) -> SessionRuntime:
        orch = self._orch
        policy = PermissionPolicy.for_settings(orch.config, mode.value, worktree.workspace)
        session = Session(orch.workspace.root, **session_args(orch, orch.session.model, policy=policy))
        orch.session_locks.claim(session.id)
        orch.store.sessions.create(
            model=session.model, mode=session.mode, session_id=session.id, title=f"agent {name}: {task}"[:80]
        )
        return self._open(name, worktree, session, policy, restored=False)

    async def _remove_unused(self, worktree: Worktree) -> tuple[bool, str]:
        """Removes the worktree and branch of an agent that did nothing in them; whether it did, and what became of
        them."""
        try:
            removed = await asyncio.to_thread(remove_if_untouched, self._orch.workspace.root, worktree, self._orch.env)
        except WorktreeError as exc:
            removed, why = False, f" ({exc})"
        else:
            why = "" if removed else " (with changes in them)"
        its = f"its worktree {worktree.root} and branch {worktree.branch}"
        return removed, f"{its} were removed" if removed else f"{its} stay{why}: /agents discard removes them"

    def _open(
        self, name: str, worktree: Worktree, session: Session, policy: PermissionPolicy, *, restored: bool
    ) -> SessionRuntime:
        """The agent's session, open beside the others, its workspace its worktree."""
        orch = self._orch
        # Its own state folder (the undo copies of its changes), ignored by git so no commit of the agent takes it.
        ensure_state_folder(worktree.workspace)
        tree = AgentTree(
            name,
            worktree,
            Workspace(worktree.workspace, orch.workspace.own_config),
            ToolCapture(worktree.workspace, orch.config.undo, undo_objects(worktree.workspace)),
            asyncio.Lock(),
        )
        runtime = make_runtime(orch, session, policy, restored=restored, tree=tree)
        orch.runtimes.add(runtime)
        self._runtimes[name], self._trees[name], self._by_session[session.id] = runtime, tree, name
        # Last: a session that cannot open leaves no capture thread writing in a tree that is being removed.
        tree.capture.start()
        return runtime

    def _reopen(self, agent: AgentRecord) -> SessionRuntime:
        """The session of an agent that ran before a restart, opened again on its worktree to be looked at or
        continued."""
        orch = self._orch
        workspace = Path(agent.workspace)
        if not workspace.is_dir():
            raise WorktreeError(
                f"agent {agent.name}'s worktree {agent.root} is gone; its committed work is on {agent.branch}"
            )
        plan = plan_resume(orch.store, agent.session_id)
        policy = PermissionPolicy.for_settings(orch.config, agent.mode, workspace)
        orch.session_locks.claim(agent.session_id)
        session = Session(
            orch.workspace.root,
            **session_args(orch, plan.loaded.info.model or None, policy=policy),
            session_id=agent.session_id,
            messages=plan.messages,
            seqs=plan.seqs,
            encoded=plan.encoded,
            created_at=plan.loaded.info.created_at,
        )
        worktree = Worktree(Path(agent.root), workspace, agent.branch, agent.base_commit)
        return self._open(agent.name, worktree, session, policy, restored=True)

    def _restored(self, agent: AgentRecord) -> AgentRecord | None:
        """A stored agent, believed only when it is this user's (its session is sealed as theirs) and names the
        worktree and branch coder-tui makes for its name: a database that came with a repository cannot point a
        discard or a merge at another branch or folder. One that was running when its engine stopped is cancelled
        now, saying so."""
        root = worktree_path(self._orch.workspace.root, agent.name)
        try:
            check_name(agent.name)
        except WorktreeError:
            return None
        if agent.root != str(root) or agent.branch != BRANCH_PREFIX + agent.name:
            return None
        if not Path(agent.workspace).is_relative_to(root) or not self._orch.store.sessions.is_own(agent.session_id):
            return None
        if agent.state.running:
            finished = agent.finished_at or agent.started_at
            return replace(agent, state=AgentState.CANCELLED, finished_at=finished, note=STOPPED_WITH_ENGINE)
        return agent

    async def _run(self, name: str, runtime: SessionRuntime, task: str) -> None:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self._orch.config.agents.max_running)
        try:
            async with self._slots:  # its end is recorded before the next one starts
                self._update(name, state=AgentState.WORKING)
                outcome = await self._orch.run_input(task, session_id=runtime.id)
                state = _ENDED.get(outcome.reason, AgentState.FAILED)
                note = outcome.error or ("" if state is AgentState.DONE else outcome.reason)
                if state is AgentState.DONE:
                    note = await self._commit(name, task)
                elif state is AgentState.FAILED:  # its session closes with its tree, if that is removed
                    removed, what = await self._remove_unused(self._trees[name].worktree)
                    note = f"{note}; {what}"
                    if removed:
                        self._close_session(name)
                self._update(name, state=state, finished_at=self._now(), note=note)
        except asyncio.CancelledError:
            note = STOPPED_WITH_ENGINE if self._closing else "cancelled"
            self._update(name, state=AgentState.CANCELLED, finished_at=self._now(), note=note)
            raise

    async def _commit(self, name: str, task: str) -> str:
        """Commits what the agent changed on its branch; what went wrong, if anything."""
        try:
            await asyncio.to_thread(commit_all, self._trees[name].worktree.root, f"{name}: {task}", self._orch.env)
        except WorktreeError as exc:
            return f"its work stays uncommitted in its worktree: {exc}"
        return ""

    def _follow(self, event: Event, session_id: str | None) -> None:
        """An agent's state, todo progress and tokens, from the events of its session: it waits for the user while
        an approval of its own is open or its ``question`` tool runs."""
        name = self._by_session.get(session_id or "")
        if name is None:
            return
        agent = self._agents[name]
        match event:
            case ToolCallAwaitingApproval() | ToolCallExecuting(tool="question") if agent.state is AgentState.WORKING:
                self._update(name, state=AgentState.WAITING)
            case ToolCallExecuting(tool="question"):
                return  # asked after an approval: it still waits for the user
            case ToolCallExecuting() | ToolCallFinished() if agent.state is AgentState.WAITING:
                self._update(name, state=AgentState.WORKING)
            case TodosChanged(todos=todos):
                done = sum(1 for todo in todos if todo.status == "completed")
                self._update(name, todos_done=done, todos_total=len(todos), store=False)
            case UsageUpdated(prompt_tokens=prompt, completion_tokens=completion) if prompt or completion:
                self._update(name, tokens=agent.tokens + prompt + completion, store=False)

    def _update(self, name: str, *, store: bool = True, **changes: Any) -> None:
        agent = self._agents.get(name)
        if agent is None:
            return
        self._set(replace(agent, **changes), store=store)

    def _set(self, agent: AgentRecord, *, store: bool = True) -> None:
        self._agents[agent.name] = agent
        if store:
            save_agent(self._orch.store, agent)
        self._announce()

    def _forget(self, name: str) -> AgentRecord:
        agent = self.get(name)
        if agent.state.running:
            raise WorktreeError(f"agent {name} is still {agent.state.value}: cancel it first (/agents cancel {name})")
        self._close_session(name)
        self._tasks.pop(name, None)
        del self._agents[name]
        delete_agent(self._orch.store, name)
        self._announce()
        return agent

    def _close_session(self, name: str) -> None:
        """Closes the agent's session, if open, and the capture of its tree."""
        runtime = self._runtimes.pop(name, None)
        if runtime is not None:
            if self._orch.runtimes.view is runtime:
                self.show(None)
            self._orch.runtimes.remove(runtime.id)
            self._by_session.pop(runtime.id, None)
        tree = self._trees.pop(name, None)
        if tree is not None:
            tree.capture.close()

    def _announce(self) -> None:
        self._announce_engine(AgentsChanged(self.rows()))
