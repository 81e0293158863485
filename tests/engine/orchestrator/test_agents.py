"""Agents (SPEC 26): ``/spawn`` starts sessions on git worktrees of their own, running at the same time; each writes
only in its tree; ``agents.max_running`` queues the rest; one cancelled, the others finish; ``/agents`` lists them,
after a restart too."""

from __future__ import annotations

import asyncio
import re
import subprocess
from pathlib import Path
from typing import Any

from engine.command_results import AgentShown, AgentsListed, CommandFailed
from engine.events import AgentsChanged, Event
from engine.interaction import ApprovalDecision, ApprovalRequest
from tests.support.fakes import FakeInteraction, make_orchestrator
from tests.support.scenario import ReplyLike, Stall, reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

GIT_ENV = {"PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": "/nonexistent", "LC_ALL": "C"}


def git(cwd: Path, *args: str) -> str:
    identity = ("-c", "user.name=Test", "-c", "user.email=test@example.invalid")
    done = subprocess.run(["git", *identity, *args], cwd=cwd, env=GIT_ENV, capture_output=True, text=True, check=True)
    return done.stdout


def make_repo(root: Path) -> Path:
    root.mkdir()
    git(root, "init", "--quiet", "-b", "main")
    (root / "README.md").write_text("hello\n")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "start")
    return root


def agent_of(body: dict[str, Any]) -> str:
    request = next(m["content"] for m in body["messages"] if m["role"] == "user")
    found = re.search(r"agent (\w+)", request)
    assert found is not None, request
    return found.group(1)


def writes_its_file(body: dict[str, Any]) -> ReplyLike:
    """Each agent: a todo list and a write of ``<agent>.txt``, then a text once the write's result came back; the
    agent ``stuck`` never answers."""
    name = agent_of(body)
    if name == "stuck":
        return Stall(after=None, seconds=30)
    if body["messages"][-1]["role"] == "user":
        return reply(
            tool_call("todowrite", todos=[{"id": "1", "content": f"{name} file", "status": "completed"}]),
            tool_call("write", path=f"{name}.txt", content=f"{name}\n"),
            usage=(100, 10),
        )
    return reply(text(f"{name} done"), usage=(120, 5))


async def spawn(orchestrator: Any, name: str) -> str:
    await orchestrator.run_input(f"/spawn --mode auto-edit --name {name} agent {name}: write your file")
    return name


def tree_files(root: Path) -> set[str]:
    return {p.name for p in root.iterdir() if p.is_file() and p.name != ".git"}


async def test_two_agents_write_only_in_their_own_worktrees(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    with ScriptedServer(fallback=writes_its_file) as server:
        orchestrator, log, _ = make_orchestrator(repo, server.base_url)
        for name in ("alpha", "beta"):
            await spawn(orchestrator, name)
        agents = [await asyncio.wait_for(orchestrator.agents.wait(name), 30) for name in ("alpha", "beta")]
        listed = await orchestrator.run_input("/agents")

    assert [agent.state.value for agent in agents] == ["done", "done"]
    for agent, other in zip(agents, ("beta", "alpha"), strict=True):
        tree = Path(agent.workspace)
        assert tree.parent == repo / ".coder" / "worktrees"
        assert (tree / f"{agent.name}.txt").read_text() == f"{agent.name}\n"
        assert not (tree / f"{other}.txt").exists()
        assert (agent.todos_done, agent.todos_total, agent.tokens) == (1, 1, 235)
        # Its work is committed on its branch, which started from the main branch's HEAD.
        assert git(repo, "show", f"{agent.branch}:{agent.name}.txt") == f"{agent.name}\n"
        assert agent.base_commit == git(repo, "rev-parse", "main").strip()
    # Nothing reached the main checkout, whose git status stays clean (.coder/ is ignored).
    assert tree_files(repo) == {"README.md"}
    assert git(repo, "status", "--porcelain") == ""
    assert listed.reason == "completed"
    shown = [e for e in log.events if isinstance(e, AgentsListed) and e.command == "/agents"][-1]
    assert [(row["name"], row["state"]) for row in shown.agents] == [("alpha", "done"), ("beta", "done")]


async def test_an_agent_is_said_to_wait_only_behind_max_running_others(tmp_path: Path) -> None:
    """With a free slot an agent starts working at once (the pane and /spawn's answer said "queued ... waits its
    turn" for every agent, the first included); past ``agents.max_running`` it is queued and /spawn says so."""
    repo = make_repo(tmp_path / "repo")
    seen: list[Event] = []
    with ScriptedServer(fallback=writes_its_file) as server:
        orchestrator, _, _ = make_orchestrator(repo, server.base_url, agents={"max_running": 1})
        orchestrator.subscribe(seen.append)
        for name in ("stuck", "next"):
            await spawn(orchestrator, name)
        states = {name: orchestrator.agents.get(name).state.value for name in ("stuck", "next")}
        await orchestrator.run_input("/agents cancel all")
        await asyncio.wait_for(orchestrator.agents.wait("next"), 30)

    said = {e.agent: e.text for e in seen if isinstance(e, AgentsListed) and e.command == "/spawn"}
    assert states == {"stuck": "working", "next": "queued"}
    assert "waits its turn" not in said["stuck"] and "waits its turn" in said["next"]


async def test_four_agents_at_most_max_running_at_once_and_one_cancelled(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    seen: list[Event] = []
    with ScriptedServer(fallback=writes_its_file) as server:
        orchestrator, _, _ = make_orchestrator(repo, server.base_url, agents={"max_running": 2})
        orchestrator.subscribe(seen.append)
        names = [await spawn(orchestrator, name) for name in ("stuck", "one", "two", "three")]
        while orchestrator.agents.get("stuck").state.value != "working":
            await asyncio.sleep(0.02)
        cancelled = await orchestrator.run_input("/agents cancel stuck")
        agents = {name: await asyncio.wait_for(orchestrator.agents.wait(name), 30) for name in names}

    assert cancelled.reason == "completed"
    assert {name: agent.state.value for name, agent in agents.items()} == {
        "stuck": "cancelled", "one": "done", "two": "done", "three": "done",
    }
    changes = [e.agents for e in seen if isinstance(e, AgentsChanged)]
    running_at_once = max(sum(row["state"] == "working" for row in rows) for rows in changes)
    assert running_at_once == 2
    assert any(row["state"] == "queued" for rows in changes for row in rows)
    worktrees = repo / ".coder" / "worktrees"
    for name in ("one", "two", "three"):
        assert tree_files(worktrees / name) == {"README.md", f"{name}.txt"}
    assert tree_files(worktrees / "stuck") == {"README.md"}
    assert tree_files(repo) == {"README.md"}


async def test_four_agents_run_at_once_each_in_its_own_tree_and_one_cancelled_leaves_the_others_to_finish(
    tmp_path: Path,
) -> None:
    import threading

    repo = make_repo(tmp_path / "repo")
    together = threading.Barrier(4, timeout=20)  # every agent's first request waits for the other three
    answered: list[str] = []

    def all_at_once(body: dict[str, Any]) -> ReplyLike:
        if body["messages"][-1]["role"] == "user":
            together.wait()
            answered.append(agent_of(body))
        return writes_its_file(body)

    seen: list[Event] = []
    names = ("stuck", "one", "two", "three")
    with ScriptedServer(fallback=all_at_once) as server:
        orchestrator, _, _ = make_orchestrator(repo, server.base_url)  # agents.max_running: 4 by default
        orchestrator.subscribe(seen.append)
        for name in names:
            await spawn(orchestrator, name)
        while "stuck" not in answered:
            await asyncio.sleep(0.02)
        await orchestrator.run_input("/agents cancel stuck")
        agents = {name: await asyncio.wait_for(orchestrator.agents.wait(name), 30) for name in names}

    assert {name: agent.state.value for name, agent in agents.items()} == {
        "stuck": "cancelled", "one": "done", "two": "done", "three": "done",
    }
    changes = [e.agents for e in seen if isinstance(e, AgentsChanged)]
    assert max(sum(row["state"] == "working" for row in rows) for rows in changes) == 4
    worktrees = repo / ".coder" / "worktrees"
    for name in ("one", "two", "three"):
        assert tree_files(worktrees / name) == {"README.md", f"{name}.txt"}
        assert git(repo, "show", f"coder/{name}:{name}.txt") == f"{name}\n"
    assert tree_files(worktrees / "stuck") == {"README.md"}
    assert tree_files(repo) == {"README.md"}
    assert git(repo, "status", "--porcelain") == ""


async def test_agents_are_listed_after_a_restart(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    with ScriptedServer(fallback=writes_its_file) as server:
        first, _, _ = make_orchestrator(repo, server.base_url)
        await spawn(first, "alpha")
        await spawn(first, "stuck")
        await asyncio.wait_for(first.agents.wait("alpha"), 30)
        await first.aclose()  # the engine stops while "stuck" still works

        second, log, _ = make_orchestrator(repo, server.base_url)
        await second.run_input("/agents")
        # Its session opens again on its worktree, to be looked at and continued there.
        shown = await second.run_input("/agents show alpha")
        again = await second.run_input("agent alpha: write your file again")
        history = [m.content for m in second.runtime.session.messages if m.role == "user"]

    listed = [e for e in log.events if isinstance(e, AgentsListed)][-1]
    rows = {row["name"]: row for row in listed.agents}
    assert (rows["alpha"]["state"], rows["alpha"]["branch"]) == ("done", "coder/alpha")
    assert rows["alpha"]["worktree"] == str(repo / ".coder" / "worktrees" / "alpha")
    assert (rows["stuck"]["state"], rows["stuck"]["note"]) == ("cancelled", "the engine stopped while it ran")
    assert (shown.reason, again.reason) == ("completed", "completed")
    assert history == ["agent alpha: write your file", "agent alpha: write your file again"]
    assert not (repo / "alpha.txt").exists()


async def test_an_agent_in_view_takes_the_input_and_its_undo_acts_on_its_tree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    with ScriptedServer(fallback=writes_its_file) as server:
        orchestrator, log, _ = make_orchestrator(repo, server.base_url)
        main_id = orchestrator.session_id
        await spawn(orchestrator, "alpha")
        agent = await asyncio.wait_for(orchestrator.agents.wait("alpha"), 30)
        await orchestrator.run_input("/agents show alpha")
        assert orchestrator.session_id == agent.session_id
        await orchestrator.run_input("/undo")
        await orchestrator.run_input("/agents main")

    written = Path(agent.workspace) / "alpha.txt"
    assert not written.exists()  # undone in the agent's tree
    assert orchestrator.session_id == main_id
    assert [e.agent for e in log.events if isinstance(e, AgentShown)] == ["alpha", None]


async def test_spawn_outside_a_git_repository_says_why(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    with ScriptedServer(fallback=writes_its_file) as server:
        orchestrator, log, _ = make_orchestrator(folder, server.base_url)
        outcome = await orchestrator.run_input("/spawn agent alpha: write your file")

    assert outcome.reason == "error"
    said = log.of(CommandFailed)[-1]
    assert "is not in a git repository" in said.text and "git init" in said.text
    assert not (folder / ".coder" / "worktrees").exists()


async def test_discard_asks_then_removes_the_worktree_and_branch_and_keep_leaves_them(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    interaction = FakeInteraction(answers=["Keep", "Discard"])
    with ScriptedServer(fallback=writes_its_file) as server:
        orchestrator, _, _ = make_orchestrator(repo, server.base_url, interaction=interaction)
        for name in ("alpha", "beta"):
            await spawn(orchestrator, name)
            await asyncio.wait_for(orchestrator.agents.wait(name), 30)
        await orchestrator.run_input("/agents discard alpha")  # answered "Keep"
        kept_after_no = (repo / ".coder" / "worktrees" / "alpha").is_dir()
        await orchestrator.run_input("/agents discard alpha")  # answered "Discard"
        await orchestrator.run_input("/agents keep beta")
        names = [agent.name for agent in orchestrator.agents.records()]

    assert [q.options for q in interaction.questions] == [("Discard", "Keep")] * 2
    assert "coder/alpha" in interaction.questions[0].question
    assert kept_after_no
    assert not (repo / ".coder" / "worktrees" / "alpha").exists()
    assert git(repo, "branch", "--list", "--format=%(refname:short)", "coder/*").split() == ["coder/beta"]
    assert (repo / ".coder" / "worktrees" / "beta" / "beta.txt").is_file()
    assert names == []


class HeldApprovals(FakeInteraction):
    """Holds every approval until the test lets them go, recording when each arrived."""

    def __init__(self) -> None:
        super().__init__()
        self.hold = asyncio.Event()

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        self.approval_requests.append(request)
        await self.hold.wait()
        return ApprovalDecision.YES


async def test_approvals_of_two_agents_wait_without_blocking_others_and_name_their_agent(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    interaction = HeldApprovals()
    with ScriptedServer(fallback=writes_its_file) as server:
        orchestrator, _, _ = make_orchestrator(repo, server.base_url, interaction=interaction)
        for name in ("first", "second"):  # the main session's mode: their writes ask
            await orchestrator.run_input(f"/spawn --name {name} agent {name}: write your file")
            while len(interaction.approval_requests) < (1 if name == "first" else 2):
                await asyncio.sleep(0.02)
        states_while_asking = {agent.name: agent.state.value for agent in orchestrator.agents.records()}
        # A third agent, which asks nothing, runs to its end while both wait.
        free = await asyncio.wait_for(orchestrator.agents.wait(await spawn(orchestrator, "free")), 30)
        interaction.hold.set()
        done = [await asyncio.wait_for(orchestrator.agents.wait(name), 30) for name in ("first", "second")]

    assert states_while_asking == {"first": "waiting for you", "second": "waiting for you"}
    assert free.state.value == "done"
    worktrees = repo / ".coder" / "worktrees"
    assert [(r.agent, r.worktree, r.key_argument) for r in interaction.approval_requests] == [
        ("first", str(worktrees / "first"), "first.txt"),
        ("second", str(worktrees / "second"), "second.txt"),
    ]
    assert [agent.state.value for agent in done] == ["done", "done"]
    assert (worktrees / "second" / "second.txt").is_file()


async def test_in_an_agents_view_commands_run_beside_its_work_and_requests_wait_for_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    tagged: list[tuple[Event, str | None]] = []
    with ScriptedServer(fallback=writes_its_file) as server:
        orchestrator, _, _ = make_orchestrator(repo, server.base_url)
        orchestrator.subscribe_tagged(lambda event, session_id: tagged.append((event, session_id)))
        main_id = orchestrator.session_id
        await spawn(orchestrator, "stuck")
        stuck = orchestrator.agents.get("stuck")
        await orchestrator.run_input("/agents show stuck")
        request = await orchestrator.run_input("do something else")
        switch = await orchestrator.run_input("/new")
        todos = await orchestrator.run_input("/todos")  # runs while the agent's turn still runs
        still_working = orchestrator.agents.get("stuck").state.value
        cancelled = orchestrator.cancel()  # Esc in its view
        agent = await asyncio.wait_for(orchestrator.agents.wait("stuck"), 30)
        await orchestrator.run_input("/agents main")

    assert (request.reason, switch.reason, todos.reason) == ("error", "error", "completed")
    assert still_working == "working" and cancelled and agent.state.value == "cancelled"
    assert orchestrator.session_id == main_id
    errors = [str(event) for event, session_id in tagged if type(event).__name__ == "ErrorEvent"]
    assert any("agent stuck is working" in text for text in errors)
    assert any("/new changes the main session" in text for text in errors)
    # The history of the agent's session came with the switch to its view.
    assert any(type(e).__name__ == "HistoryRestored" and e.session_id == stuck.session_id for e, _ in tagged)


async def test_an_agents_branch_holds_its_work_and_none_of_coders_state(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    with ScriptedServer(fallback=writes_its_file) as server:
        orchestrator, _, _ = make_orchestrator(repo, server.base_url)
        await spawn(orchestrator, "alpha")
        agent = await asyncio.wait_for(orchestrator.agents.wait("alpha"), 30)

    changed = git(repo, "diff", "--name-only", agent.base_commit, agent.branch).split()
    assert changed == ["alpha.txt"]


async def test_a_forged_agent_row_cannot_point_discard_at_another_branch_or_folder(tmp_path: Path) -> None:
    from engine.agents.records import AgentRecord, AgentState
    from engine.storage.agent_table import save_agent

    repo = make_repo(tmp_path / "repo")
    git(repo, "branch", "keepme")
    with ScriptedServer(fallback=writes_its_file) as server:
        first, _, _ = make_orchestrator(repo, server.base_url)
        own_session = first.session_id
        for name, branch, root in (("evil", "keepme", str(repo)), ("main", "main", str(repo / ".coder" / "x"))):
            save_agent(first.store, AgentRecord(
                name=name, task="t", session_id=own_session, parent_session_id=own_session, root=root,
                workspace=root, branch=branch, base_commit="0" * 40, mode="default", state=AgentState.DONE,
                started_at=1.0,
            ))
        await first.aclose()
        second, _, interaction = make_orchestrator(repo, server.base_url, interaction=FakeInteraction(["Discard"]))
        discarded = await second.run_input("/agents discard evil")
        listed = [agent.name for agent in second.agents.records()]

    assert discarded.reason == "error" and listed == []
    assert not interaction.questions
    branches = git(repo, "branch", "--list", "--format=%(refname:short)").split()
    assert sorted(branches) == ["keepme", "main"]
    assert (repo / "README.md").is_file()


async def test_an_agents_hooks_run_in_its_worktree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    hooks = {"PostToolUse": [{"matcher": "write", "hooks": [{"type": "command", "command": "pwd > hook-ran-here"}]}]}
    with ScriptedServer(fallback=writes_its_file) as server:
        orchestrator, _, _ = make_orchestrator(repo, server.base_url, hooks=hooks)
        await spawn(orchestrator, "alpha")
        agent = await asyncio.wait_for(orchestrator.agents.wait("alpha"), 30)

    tree = Path(agent.workspace)
    assert (tree / "hook-ran-here").read_text().strip() == str(tree)
    assert not (repo / "hook-ran-here").exists()


async def test_a_new_agent_never_takes_the_name_of_a_kept_worktree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    with ScriptedServer(fallback=writes_its_file) as server:
        orchestrator, _, _ = make_orchestrator(repo, server.base_url)
        first = await orchestrator.agents.spawn("agent beta: write your file")
        await asyncio.wait_for(orchestrator.agents.wait(first.name), 30)
        await orchestrator.run_input(f"/agents keep {first.name}")
        second = await orchestrator.agents.spawn("agent beta: write your file")
        await asyncio.wait_for(orchestrator.agents.wait(second.name), 30)

    assert (first.name, second.name) == ("agent-beta-write", "agent-beta-write-2")
    assert (repo / ".coder" / "worktrees" / first.name / "beta.txt").is_file()
