"""The agents of a workspace (SPEC 26), one row each in the database beside the sessions: the record as JSON,
keyed by the agent's name. The table is made at first use; its rows are read back by ``/agents`` after a restart."""

from __future__ import annotations

import json
from dataclasses import asdict

from engine.agents.records import AgentRecord, AgentState
from engine.storage.store import Store

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


def load_agents(store: Store) -> list[AgentRecord]:
    """Every agent row that reads as a record, oldest first (``AgentPool`` decides which to believe)."""
    with store.db.transaction() as conn:
        conn.execute(_TABLE)
        rows = [record for (record,) in conn.execute("SELECT record FROM agents")]
    agents = []
    for text in rows:
        try:
            data = json.loads(text)
            agents.append(AgentRecord(**{**data, "state": AgentState(data["state"])}))
        except (ValueError, TypeError, KeyError):
            continue
    return sorted(agents, key=lambda agent: agent.started_at)
