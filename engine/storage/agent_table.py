"""The agents of a workspace (SPEC 26), one row each in the database beside the sessions: the record as JSON,
keyed by the agent's name. The table is made at first use; its rows are read back by ``/agents`` after a restart.

A row is believed only when it is this user's (the agent's session is sealed as theirs) and names the worktree and
branch coder-tui would have made for that name: a database that came with a repository cannot point a discard at
another branch or folder."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from pathlib import Path

from engine.agents.records import AgentRecord, AgentState
from engine.agents.worktree import BRANCH_PREFIX, check_name, worktree_path
from engine.errors import EngineError
from engine.storage.store import Store

STOPPED_WITH_ENGINE = "the engine stopped while it ran"
_TABLE = "CREATE TABLE IF NOT EXISTS agents (name TEXT PRIMARY KEY, record TEXT NOT NULL)"


def save_agent(store: Store, agent: AgentRecord) -> None:
    row = {**asdict(agent), "state": agent.state.value}
    with store.db.transaction() as conn:
        conn.execute(_TABLE)
        conn.execute(
            "INSERT INTO agents (name, record) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET record = excluded.record",
            (agent.name, json.dumps(row)),
        )


def delete_agent(store: Store, name: str) -> None:
    with store.db.transaction() as conn:
        conn.execute(_TABLE)
        conn.execute("DELETE FROM agents WHERE name = ?", (name,))


def load_agents(store: Store, workspace: Path) -> list[AgentRecord]:
    """This user's agents of ``workspace``, oldest first. One that was running when its engine stopped is
    cancelled now, saying so."""
    with store.db.transaction() as conn:
        conn.execute(_TABLE)
        rows = [record for (record,) in conn.execute("SELECT record FROM agents")]
    agents = []
    for text in rows:
        try:
            data = json.loads(text)
            agent = AgentRecord(**{**data, "state": AgentState(data["state"])})
            check_name(agent.name)
        except (ValueError, TypeError, KeyError, EngineError):
            continue
        expected_root = str(worktree_path(workspace, agent.name))
        if agent.root != expected_root or agent.branch != BRANCH_PREFIX + agent.name:
            continue
        if not Path(agent.workspace).is_relative_to(expected_root):
            continue
        if not store.is_own(agent.session_id):
            continue
        if agent.state.running:
            agent = replace(
                agent, state=AgentState.CANCELLED, finished_at=agent.finished_at or agent.started_at,
                note=STOPPED_WITH_ENGINE,
            )
        agents.append(agent)
    return sorted(agents, key=lambda agent: agent.started_at)
