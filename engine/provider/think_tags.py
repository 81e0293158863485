"""Reasoning that a server leaves inline in the answer: ``<think>...</think>`` (Qwen3, DeepSeek-R1, QwQ on Ollama or
on vLLM without a reasoning parser).

Only a block that opens the answer counts. That is where these models put it: their chat templates make the
reasoning the first thing generated, and a later ``<think>`` is text the model writes about the tag (HTML, a prompt,
this very parser). Two shapes reach us:

- ``<think>plan</think>answer``: split as it streams, with the tags cut anywhere across deltas (``<thi`` + ``nk>``);
- ``plan</think>answer``: the template already put ``<think>`` in the prompt (DeepSeek-R1 and QwQ on vLLM). Nothing
  marks the start, so the text streams as answer and ``split_prefilled`` divides the finished message.
"""

from __future__ import annotations

import re

_OPEN_TAGS = ("<think>", "<thinking>")
_CLOSE_FOR = {"<think>": "</think>", "<thinking>": "</thinking>"}
_PREFILLED = re.compile(r"\A(?P<reasoning>(?:(?!<think>).)*?)</think>\s*", re.DOTALL)


class ThinkTagSplitter:
    """Feed the content deltas in order; each call returns ``(answer_text, reasoning_text)`` ready to pass on."""

    def __init__(self) -> None:
        self._state = "start"  # start -> thinking -> after_block -> answer
        self._held = ""
        self._close_tag = ""

    def feed(self, text: str) -> tuple[str, str]:
        if self._state == "answer":
            return text, ""
        if self._state == "after_block":
            return self._after_block(text), ""
        self._held += text
        if self._state == "start":
            return self._at_start()
        return self._in_block()

    def finish(self) -> tuple[str, str]:
        """What is still held at the end: an unclosed block is reasoning; an unfinished opening is text."""
        held, self._held = self._held, ""
        if self._state == "thinking":
            return "", held
        return held, ""

    def _at_start(self) -> tuple[str, str]:
        stripped = self._held.lstrip()
        for tag in _OPEN_TAGS:
            if stripped.startswith(tag):
                self._state, self._close_tag = "thinking", _CLOSE_FOR[tag]
                self._held = stripped[len(tag):]
                return self._in_block()
        if not stripped or any(tag.startswith(stripped) for tag in _OPEN_TAGS):
            return "", ""  # still undecided: white space, or the first bytes of an opening tag
        self._state = "answer"
        held, self._held = self._held, ""
        return held, ""

    def _in_block(self) -> tuple[str, str]:
        end = self._held.find(self._close_tag)
        if end >= 0:
            reasoning, after = self._held[:end], self._held[end + len(self._close_tag):]
            self._held = ""
            self._state = "after_block"
            return self._after_block(after), reasoning
        keep = partial_tag_length(self._held, self._close_tag)
        reasoning = self._held[: len(self._held) - keep]
        self._held = self._held[len(self._held) - keep:]
        return "", reasoning


    def _after_block(self, text: str) -> str:
        """The blank lines the model puts after the block are layout, not answer, in however many deltas."""
        text = text.lstrip()
        if text:
            self._state = "answer"
        return text


def split_prefilled(text: str) -> tuple[str, str] | None:
    """``(answer, reasoning)`` when ``text`` is reasoning closed by ``</think>`` that never opened; else None."""
    found = _PREFILLED.match(text)
    if found is None:
        return None
    return text[found.end():], found["reasoning"].strip()


def partial_tag_length(text: str, tag: str) -> int:
    """The length of the longest end of ``text`` that ``tag`` starts with (0 when none): text a streamed tag may
    still complete, held back until the next delta says."""
    for length in range(min(len(tag) - 1, len(text)), 0, -1):
        if tag.startswith(text[-length:]):
            return length
    return 0
