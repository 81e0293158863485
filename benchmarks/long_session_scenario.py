"""The scripted server's scenario for ``long_session.py``: every request is one short exchange.

The last user message reads ``exchange N``; the answer is a short Markdown paragraph ending in ``doneN.`` (the marker
the benchmark waits for). With ``tool`` in the message the model first calls ``read`` on ``notes.txt`` and answers
after its result, as most real exchanges do. Every answer reports its usage, as OpenAI (with
``stream_options.include_usage``), Ollama, vLLM and llama.cpp do (``bench_scenario.usage_of``).
"""

from __future__ import annotations

import re
from typing import Any

from benchmarks.bench_scenario import usage_of
from tests.support.scenario import reply, text, tool_call

REPLIES: list[Any] = []


def answer(number: str) -> str:
    return (
        f"Exchange {number}: the **helper** reads `notes.txt`, checks the limits and returns the value. "
        f"Nothing else changes. done{number}."
    )


def fallback(body: dict[str, Any]) -> Any:
    messages = body.get("messages", [])
    last_user = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "user"), "")
    if isinstance(last_user, list):
        last_user = " ".join(part.get("text", "") for part in last_user if isinstance(part, dict))
    match = re.search(r"exchange (\d+)", last_user)
    number = match.group(1) if match else "0"
    usage = usage_of(body, 30)
    if "tool" in last_user and messages and messages[-1].get("role") == "user":
        return reply(tool_call("read", path="notes.txt"), usage=usage)
    return reply(text(answer(number)), usage=usage)
