"""SPEC 15 and 24: a running command's output reaches an ACP client as it comes, as ``tool_call_update``s of the
call in progress, before its final result."""

from __future__ import annotations

from pathlib import Path

from acp import text_block
from acp.schema import ToolCallProgress

from tests.server.test_acp import ScriptedClient, agent
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


async def test_a_commands_output_is_sent_while_it_runs(workspace: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("bash", id="b1", command="echo one; sleep 0.3; echo two")), text("Ran."))
    client = ScriptedClient(answers=["allow_once"])
    async with agent(workspace, scripted_server, client) as conn:
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id, prompt=[text_block("run it")])
    assert done.stop_reason == "end_turn"
    progress = [u for u in client.of(ToolCallProgress) if u.tool_call_id == "b1"]
    live = [u for u in progress if u.status == "in_progress" and u.content]
    assert live and live[0].content[0].content.text == "one\n"
    assert live[-1].content[0].content.text == "one\ntwo\n"
    # The output came before the call's result.
    assert progress[-1].status == "completed" and progress.index(live[-1]) < len(progress) - 1
