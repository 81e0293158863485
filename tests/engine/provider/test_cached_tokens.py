"""SPEC 18, prompt caching: the prompt tokens a server read from its cache are read from each server's usage
(OpenAI's ``prompt_tokens_details.cached_tokens``, DeepSeek's ``prompt_cache_hit_tokens``, the Responses API's
``input_tokens_details.cached_tokens``), carried by the usage events and summed by ``/cost``."""

from __future__ import annotations

import json
from pathlib import Path

from engine.events import UsageUpdated
from engine.settings_results import CostShown
from tests.support.fakes import make_orchestrator
from tests.support.scenario import raw_sse, reply, text
from tests.support.scripted_server import ScriptedServer


def _deepseek_stream(answer: str, prompt: int, hit: int) -> str:
    """DeepSeek's last chunk: usage with ``prompt_cache_hit_tokens`` and ``prompt_cache_miss_tokens``."""
    usage = {"prompt_tokens": prompt, "completion_tokens": 3, "total_tokens": prompt + 3,
             "prompt_cache_hit_tokens": hit, "prompt_cache_miss_tokens": prompt - hit}
    chunk = {"id": "d1", "object": "chat.completion.chunk", "created": 1765100000, "model": "deepseek-chat"}
    events = [
        {**chunk, "choices": [{"index": 0, "delta": {"role": "assistant", "content": answer}, "finish_reason": None}]},
        {**chunk, "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "stop"}], "usage": usage},
    ]
    return "".join(f"data: {json.dumps(event)}\n\n" for event in events) + "data: [DONE]\n\n"


async def test_cached_tokens_reach_the_usage_events_and_cost(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(
        reply(text("one"), usage=(1200, 30), cached=1024),
        raw_sse(_deepseek_stream("two", 1300, 1280)),
        reply(text("three"), usage=(1400, 10)),
    )
    orchestrator, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    for prompt in ("first", "second", "third"):
        assert (await orchestrator.run_input(prompt)).ok
    await orchestrator.run_input("/cost")

    usage = [(u.prompt_tokens, u.cached_tokens) for u in log.of(UsageUpdated) if u.prompt_tokens]
    assert usage == [(1200, 1024), (1300, 1280), (1400, 0)]
    result = log.of(CostShown)[-1]
    assert result.cached_tokens == 2304
    assert "cached prompt tokens: 2,304 of 3,900 sent (59%" in result.text
