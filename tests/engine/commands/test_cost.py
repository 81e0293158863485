"""SPEC 15: the session's token use is one command away: ``/cost`` sums what the server counted."""

from __future__ import annotations

from pathlib import Path

from engine.settings_results import CostShown
from tests.support.fakes import make_orchestrator
from tests.support.scenario import reply, text
from tests.support.scripted_server import ScriptedServer


async def test_cost_sums_the_servers_counts(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("one"), usage=(1200, 30)), reply(text("two"), usage=(1300, 45)))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("first")
    await orch.run_input("second")
    await orch.run_input("/cost")
    result = log.of(CostShown)[-1]
    assert result.requests == 2
    assert (result.prompt_tokens, result.completion_tokens) == (2500, 75)
    assert result.text.startswith("tokens this run: 2,575 (2,500 sent, 75 received) over 2 requests")
