"""The scripted server's scenario for ``agents.py`` (run in the server's own process with ``--scenario``).

Answers by the request's last user message: ``AGENTSTREAM <name>`` → a ~5k-token Markdown answer of that agent,
every heading and its last line carrying ``<NAME>X`` (text no other view shows); ``SOLOSTREAM`` → the same answer
for the main session alone; anything else → a short greeting. The agents' answers wait until ``AGENTS`` of them were
asked, then all stream at once. Every request's arrival, and the moment the agents' answers start, are appended
(``time.monotonic``) to the file named by ``CODER_BENCH_LOG``.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

from benchmarks.bench_scenario import GREETING, usage_of
from tests.support.scenario import Slow, reply, text

REPLIES: list[Any] = []
AGENTS = 4
ANSWER_TOKENS = 5_000
SOLO = "solo"
# 16 characters (about 4 tokens) per chunk every 2 ms: ~2,000 tokens a second for each answer.
CHUNK_CHARS = 16
CHUNK_DELAY_S = 0.002
RELEASED = "released"
_together = threading.Barrier(AGENTS, timeout=120)


def marker(name: str) -> str:
    return f"{name.upper()}X"


def agent_answer(name: str, tokens: int = ANSWER_TOKENS) -> str:
    """Markdown of about ``tokens`` tokens (~4 characters each) naming ``name``'s marker in every section."""
    mark = marker(name)
    sections: list[str] = []
    index = 0
    while sum(len(part) for part in sections) < tokens * 4:
        index += 1
        sections.append(
            f"## {mark} step {index}\n\nThe function `handle_{index}` reads the request, checks the **limits** and "
            f"writes the result back; a small cache keeps repeated calls cheap.\n\n"
            f"- validate the input of step {index}\n- update the counters\n\n"
            f"```python\ndef handle_{index}(request):\n    return request.get('value', {index}) * 2\n```\n\n"
        )
    return "".join(sections) + f"That is all from {mark}.\n"


def _log(line: str) -> None:
    if log := os.environ.get("CODER_BENCH_LOG"):
        with open(log, "a") as file:
            file.write(f"{time.monotonic()} {line}\n")


def fallback(body: dict[str, Any]) -> Any:
    last = next((m.get("content") or "" for m in reversed(body.get("messages", [])) if m.get("role") == "user"), "")
    _log(repr(last[:40]))
    words = str(last).split()
    if "AGENTSTREAM" in words:
        name = words[words.index("AGENTSTREAM") + 1]
        if _together.wait() == 0:
            _log(RELEASED)
        answer = agent_answer(name)
    elif "SOLOSTREAM" in words:
        answer = agent_answer(SOLO)
    else:
        return reply(text(GREETING), usage=usage_of(body, 8))
    return Slow(reply(text(answer, chunk=CHUNK_CHARS), usage=usage_of(body, ANSWER_TOKENS)), CHUNK_DELAY_S)
