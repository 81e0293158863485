"""The scripted server's scenario for ``pty_latency.py`` (run in the server's own process with ``--scenario``).

Answers by the request's last user message: ``STREAM`` → a 20k-token Markdown answer ending in ``ENDOFANSWER``,
streamed fast; ``STALL`` → a little text, then nothing (for Esc); anything else → a short greeting. Every request's
arrival time (``time.monotonic``) is appended to the file named by ``CODER_BENCH_LOG``. Every answer reports its
usage (``usage_of``), as servers do when asked with ``stream_options.include_usage`` (OpenAI, vLLM, Ollama,
llama.cpp): coder-tui asks, and its context meter uses it.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from tests.support.scenario import Slow, Stall, reply, text

REPLIES: list[Any] = []
ANSWER_TOKENS = 20_000
END_MARKER = "ENDOFANSWER"
GREETING = "Hello, ready when you are."
THINKING = "Thinking about it"
# 16 characters (about 4 tokens) per chunk every millisecond: a very fast model.
CHUNK_CHARS = 16
CHUNK_DELAY_S = 0.001


def long_answer(tokens: int) -> str:
    """Markdown of about ``tokens`` tokens (~4 characters each): headings, prose, lists and code blocks."""
    sections = []
    index = 0
    while sum(len(part) for part in sections) < tokens * 4:
        index += 1
        sections.append(
            f"## Step {index}\n\nThe function `handle_{index}` reads the request, checks the **limits** and "
            f"writes the result back. It keeps state in a small cache so repeated calls stay cheap.\n\n"
            f"- validate the input of step {index}\n- update the counters\n- return the response\n\n"
            f"```python\ndef handle_{index}(request):\n    value = request.get('value', {index})\n"
            f"    if value < 0:\n        raise ValueError('negative')\n    return value * 2\n```\n\n"
        )
    return "".join(sections) + f"That is all: {END_MARKER}.\n"


ANSWER = long_answer(ANSWER_TOKENS)


def usage_of(body: dict[str, Any], completion_tokens: int) -> tuple[int, int]:
    """(prompt, completion) tokens for a request, at about four bytes a token."""
    return len(json.dumps(body)) // 4, completion_tokens


def fallback(body: dict[str, Any]) -> Any:
    arrived = time.monotonic()
    last = next((m.get("content") or "" for m in reversed(body.get("messages", [])) if m.get("role") == "user"), "")
    if log := os.environ.get("CODER_BENCH_LOG"):
        with open(log, "a") as file:
            file.write(f"{arrived} {last[:40]!r}\n")
    if "STREAM" in last:
        return Slow(reply(text(ANSWER, chunk=CHUNK_CHARS), usage=usage_of(body, ANSWER_TOKENS)), CHUNK_DELAY_S)
    if "STALL" in last:
        return Stall(reply(text(THINKING)), 120)
    return reply(text(GREETING), usage=usage_of(body, 8))
