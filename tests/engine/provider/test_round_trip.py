"""SPEC 18 round trip: provider fields kept on a message survive a restart and are sent back after `/resume`."""

from __future__ import annotations

from pathlib import Path

from tests.support.fakes import make_orchestrator
from tests.support.scenario import raw_sse, text
from tests.support.scripted_server import ScriptedServer

DEEPSEEK = (
    'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":"Think."}}]}\n\n'
    'data: {"choices":[{"index":0,"delta":{"content":"Hi.","reasoning_content":null}}]}\n\n'
    'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    "data: [DONE]\n\n"
)


async def test_reasoning_content_is_sent_back_after_a_resume(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(raw_sse(DEEPSEEK), text("Again."))
    first, _, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    assert (await first.run_input("hello")).ok
    session_id = first.session_id
    await first.aclose()

    second, _, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    assert (await second.run_input(f"/resume {session_id}")).ok
    assert (await second.run_input("and again")).ok

    sent = [m for m in scripted_server.requests[-1].body["messages"] if m["role"] == "assistant"]
    assert sent == [{"role": "assistant", "content": "Hi.", "reasoning_content": "Think."}]
