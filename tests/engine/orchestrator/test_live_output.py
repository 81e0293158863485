"""SPEC 15: a running command's output reaches the front ends as it comes (``ToolCallOutput``), before the call's
result, coalesced and bounded however much it prints."""

from __future__ import annotations

import asyncio
from pathlib import Path

from engine.events import ToolCallFinished, ToolCallOutput
from engine.modes import Mode
from engine.orchestrator.live_output import MAX_PENDING
from tests.engine.orchestrator.test_cancellation import wait_for
from tests.support.fakes import make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


async def test_output_arrives_while_the_command_still_runs(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(
        reply(tool_call("bash", command="echo first; touch started; while [ ! -e go ]; do sleep 0.05; done; echo second")),
        reply(text("done")),
    )
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.YOLO)
    task = asyncio.create_task(orch.run_input("run it"))
    # The first line is shown while the command waits: nothing has finished yet.
    await wait_for(lambda: any("first" in e.text for e in log.of(ToolCallOutput)))
    assert not log.of(ToolCallFinished)
    (tmp_path / "go").touch()
    await task
    outputs = log.of(ToolCallOutput)
    assert "".join(e.text for e in outputs) == "first\nsecond\n"
    assert {e.stream for e in outputs} == {"stdout"}
    # Every piece of output comes before the result.
    order = [type(e).__name__ for e in log.events if isinstance(e, (ToolCallOutput, ToolCallFinished))]
    assert order[-1] == "ToolCallFinished" and order.count("ToolCallFinished") == 1


async def test_a_flood_is_sent_in_few_bounded_events(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("bash", command="seq 1 300000")), reply(text("done")))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.YOLO)
    await orch.run_input("count")
    outputs = log.of(ToolCallOutput)
    total = sum(len(f"{n}\n") for n in range(1, 300001))
    assert sum(len(e.text) + e.skipped for e in outputs) == total
    assert all(len(e.text) <= MAX_PENDING for e in outputs)
    # The last lines are always sent (what a front end shows live), and the events are far fewer than the lines.
    assert "".join(e.text for e in outputs).endswith("299999\n300000\n")
    assert len(outputs) < 1000
