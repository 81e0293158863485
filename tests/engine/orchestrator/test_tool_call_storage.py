"""What a tool call costs the database (SPEC 12, issue 14): three transactions, and rows that are committed before
the call runs, so a process killed while a tool runs still finds its request and its permission decision."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from pathlib import Path

import pytest

from engine.events import ToolCallFinished
from engine.modes import Mode
from engine.storage import db as db_module
from tests.support.fakes import make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

# Per tool call: the assistant message (BEGIN, UPDATE sessions, INSERT message, COMMIT); its request and permission
# rows (BEGIN, INSERT, INSERT, COMMIT); its completion with the tool message (BEGIN, UPDATE audit, UPDATE sessions,
# INSERT message, COMMIT).
TRANSACTIONS_PER_CALL = 3
STATEMENTS_PER_CALL = 13


async def statements_of_a_turn(workspace: Path, server: ScriptedServer, calls: int, mode: Mode) -> list[str]:
    workspace.mkdir()
    (workspace / "small.txt").write_text("one line\n")
    server.add(*[reply(tool_call("read", path="small.txt", limit=n + 1)) for n in range(calls)], text("done"))
    orchestrator, _, _ = make_orchestrator(workspace, server.base_url, mode=mode, interactive=False)
    seen: list[str] = []

    def sent(statement: str) -> None:
        """The statements coder-tui sends: the search index's triggers run inside them, and are traced as the
        statement again or as "-- ..." lines."""
        if not statement.startswith("--") and (not seen or seen[-1] != statement):
            seen.append(statement)

    with orchestrator.store.db.read() as conn:
        conn.set_trace_callback(sent)
    outcome = await orchestrator.run_input("read small.txt a few times")
    assert outcome.ok, outcome.error
    return seen


@pytest.mark.parametrize("mode", [Mode.YOLO, Mode.DEFAULT])
async def test_a_tool_call_costs_three_transactions(
    tmp_path: Path, scripted_server: ScriptedServer, mode: Mode
) -> None:
    two = await statements_of_a_turn(tmp_path / "two", scripted_server, 2, mode)
    five = await statements_of_a_turn(tmp_path / "five", scripted_server, 5, mode)
    begins = [s for s in five if s.startswith("BEGIN")], [s for s in two if s.startswith("BEGIN")]
    assert (len(begins[0]) - len(begins[1])) / 3 == TRANSACTIONS_PER_CALL
    assert (len(five) - len(two)) / 3 == STATEMENTS_PER_CALL


async def test_the_request_and_permission_rows_are_committed_before_the_tool_runs(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    """The command reads the database from another process while it runs: it sees only committed rows."""
    query = (
        "import sqlite3, json; db = sqlite3.connect('.coder/coder.db'); "
        "print(json.dumps([db.execute('SELECT call_id FROM audit_log WHERE completed_at IS NULL').fetchall(), "
        "db.execute('SELECT call_id, decision FROM permission_log').fetchall()]))"
    )
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(query)}"
    scripted_server.add(reply(tool_call("bash", id="call_peek", command=command)), text("done"))
    orchestrator, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.YOLO)
    await orchestrator.run_input("look at the audit log")
    (finished,) = log.of(ToolCallFinished)
    open_calls, permissions = json.loads(finished.result["stdout"])
    assert open_calls == [["call_peek"]]
    assert permissions == [["call_peek", "allow"]]
    (entry,) = orchestrator.store.audit.entries(orchestrator.session_id)
    assert entry.call_id == "call_peek" and entry.completed_at is not None


async def test_the_log_is_checkpointed_once_the_input_has_ended(
    tmp_path: Path, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db_module, "CHECKPOINT_AFTER_COMMITS", 1)
    seen = await statements_of_a_turn(tmp_path / "ws", scripted_server, 3, Mode.YOLO)
    assert not any("checkpoint" in statement for statement in seen)
    await asyncio.sleep(0)  # the round of the loop after the input's end
    assert [statement for statement in seen if "checkpoint" in statement] == ["PRAGMA wal_checkpoint(PASSIVE)"]
