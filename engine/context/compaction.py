"""Compaction (SPEC 10): when the context nears the model's window, the older part of the conversation is
summarised by the model into a structured state and replaced by that summary in the model's view; the most recent
part stays verbatim. The replaced messages are not lost: the session starts a new context epoch and the store keeps
every message (``Session.start_epoch``).

The split never falls between an assistant message that calls tools and the tool results that answer it (the API
rejects a history with one and not the other). A compaction whose result is not smaller than what it replaces is
dropped, and ``CompactionState`` keeps the automatic path from trying the same thing again at every step.
The model call itself is the caller's: ``compact`` is handed an async ``summarise`` callable.

What the work is for never rests on the model's wording: the summary message carries, besides the model's summary,
the user's original request and the open todos verbatim (``Keep``), put there by code. A later compaction finds the
original request in the summary it replaces, so it survives any number of them.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.messages import Message
from engine.record import record

if TYPE_CHECKING:
    from engine.config.schema import CompactionConfig
    from engine.context.tokens import TokenCounter
    from engine.provider.base import ChatProvider

# Takes the summarisation request (a system and a user message) and returns the model's answer text.
Summarise = Callable[[list[Message]], Awaitable[str]]

SUMMARY_HEADER = "[Context summary]"
# The original request is kept whole up to this size; a longer one (a pasted log) keeps its start and its end, or
# no compaction could ever shrink a context it fills.
MAX_ORIGINAL_REQUEST_CHARS = 8000
ORIGINAL_OPEN, ORIGINAL_CLOSE = "<original-request>", "</original-request>"
# One message of the transcript the summariser reads is cut to this many characters (its start and its end kept):
# a huge file read or test log matters by its gist, and the request must fit the window.
MAX_TRANSCRIPT_MESSAGE_CHARS = 3000
# After a failed automatic compaction, the next automatic one waits until the context has grown by this share of
# the window: new material to summarise, not the same attempt again.
RETRY_GROWTH = 0.1

SUMMARY_INSTRUCTIONS = """You compact the history of a coding session between a user and a coding agent. The \
agent will continue the work with your summary in place of the history, so it must hold everything needed to go \
on without asking again. Be precise and brief; keep exact names: file paths, functions, commands, error messages, \
numbers. Write only the summary, in these sections:

## Goal
What the user wants. Quote the user's latest request exactly.
## Constraints
Requirements, preferences and decisions the user stated; things not to do.
## Key facts
What was learned about the code, the environment and the problem.
## Files touched
Each file read, created, edited or deleted, and what changed in it.
## Actions done
Commands run and tools used, with their outcomes (tests passed or failed, errors seen).
## Task state
What is finished, what is in progress, what comes next; open todo items.

If the history begins with an earlier summary, merge it in: nothing it records may be lost."""


def should_compact(tokens: int, window: int, threshold: float) -> bool:
    """Whether ``tokens`` reach ``threshold`` (0.7 by default) of the model's context ``window``."""
    if window <= 0:
        raise ValueError(f"context window must be positive, got {window}")
    return tokens >= threshold * window


@record
class Keep:
    """What a summary carries verbatim, whatever the model writes: the user's first request of the session, the
    open todos (as the todo list shows them), and what the user asked the summary to focus on (``/compact ...``)."""

    original_request: str | None = None
    open_todos: str | None = None
    focus: str | None = None


def original_request(messages: Sequence[Message]) -> str | None:
    """The session's first request: kept in the summary that replaced it, else the first user message."""
    for message in messages:
        if message.role != "user" or not message.content:
            continue
        text = message.content
        if text.startswith(SUMMARY_HEADER) and ORIGINAL_OPEN in text:
            return text.split(ORIGINAL_OPEN, 1)[1].split(ORIGINAL_CLOSE, 1)[0].strip("\n")
        if not text.startswith(SUMMARY_HEADER):
            return text
    return None


@record
class CompactionPlan:
    """``messages[:split]`` are summarised; ``messages[split:]`` stay as they are."""

    split: int
    summarised_tokens: int
    kept_tokens: int


@record
class CompactionResult:
    applied: bool
    # The history to use from now on: the summary then the kept messages, or the old history when dropped.
    messages: tuple[Message, ...]
    tokens_before: int
    tokens_after: int
    summary: str | None
    # Why it was dropped, or what was done, in words for a notice.
    reason: str

    @property
    def kept(self) -> int:
        """How many of the most recent messages stay verbatim after the summary (applied results only)."""
        return len(self.messages) - 1 if self.applied else len(self.messages)


@dataclass
class CompactionState:
    """Remembers a failed compaction so the automatic path does not retry it at every model call."""

    failed_at: int | None = None

    def record(self, result: CompactionResult) -> None:
        self.failed_at = None if result.applied else result.tokens_before

    def record_failure(self, tokens: int) -> None:
        """For a compaction that could not even be tried to its end (the summary request failed)."""
        self.failed_at = tokens

    def allows_automatic(self, tokens: int, window: int) -> bool:
        return self.failed_at is None or tokens >= self.failed_at + RETRY_GROWTH * window


def plan_compaction(
    messages: Sequence[Message], counter: TokenCounter, keep_ratio: float = 0.3
) -> CompactionPlan | None:
    """Chooses the split so that about ``keep_ratio`` of the tokens, the most recent, stay verbatim; None when
    there is nothing older to summarise. The split lands only before a message that is not a tool result, taking
    whichever such boundary keeps closest to the target; at least the last message is always kept."""
    if not 0 < keep_ratio < 1:
        raise ValueError(f"keep_ratio must be between 0 and 1, got {keep_ratio}")
    counts = [counter.count_message(message) for message in messages]
    total = sum(counts)
    boundaries = [i for i in range(1, len(messages)) if messages[i].role != "tool"]
    if not boundaries:
        return None
    # kept[i]: tokens of messages[i:].
    kept = [0] * (len(messages) + 1)
    for i in range(len(messages) - 1, -1, -1):
        kept[i] = kept[i + 1] + counts[i]
    target = keep_ratio * total
    split = min(boundaries, key=lambda i: (abs(kept[i] - target), -i))
    return CompactionPlan(split=split, summarised_tokens=total - kept[split], kept_tokens=kept[split])


async def compact(
    messages: Sequence[Message],
    summarise: Summarise,
    *,
    counter: TokenCounter,
    keep_ratio: float = 0.3,
    system: str = "",
    tools: Sequence[dict[str, Any]] = (),
    keep: Keep = Keep(),
    must_shrink: bool = True,
) -> CompactionResult:
    """Summarises the older part of ``messages`` and returns the shorter history, or the unchanged one with the
    reason it was dropped. Errors of ``summarise`` (the model call) and cancellation go to the caller.
    ``must_shrink``: a summary no smaller than what it replaces is dropped (the automatic path; ``/compact`` asked
    for the summary, and what it keeps verbatim may outweigh a short history)."""
    before = counter.total(messages, system=system, tools=tools)
    plan = plan_compaction(messages, counter, keep_ratio)
    if plan is None:
        return _dropped(messages, before, "nothing old enough to summarise")
    answer = (await summarise(summary_request(messages[: plan.split], keep.focus))).strip()
    if not answer:
        return _dropped(messages, before, "the model returned an empty summary")
    replacement = summary_message(answer, keep)
    # Totals are sums of per-message counts, so the new total follows without recounting the kept messages.
    after = before - plan.summarised_tokens + counter.count_message(replacement)
    if must_shrink and after >= before:
        return _dropped(messages, before, f"the summary did not shrink the context ({before} -> {after} tokens)", after)
    kept = tuple(messages[plan.split :])
    return CompactionResult(
        applied=True,
        messages=(replacement, *kept),
        tokens_before=before,
        tokens_after=after,
        summary=answer,
        reason=f"{plan.split} older messages summarised, {len(kept)} recent ones kept",
    )


async def compact_if_needed(
    messages: Sequence[Message],
    summarise: Summarise,
    *,
    counter: TokenCounter,
    config: CompactionConfig,
    window: int,
    state: CompactionState,
    system: str = "",
    tools: Sequence[dict[str, Any]] = (),
    force: bool = False,
    keep: Keep = Keep(),
    before: Callable[[], Awaitable[None]] | None = None,
) -> CompactionResult | None:
    """The whole ``maybe_compact`` decision: None when no compaction is due (disabled, under the threshold, or
    a recent failure at about this size); else the result, recorded in ``state``. ``force`` is ``/compact``:
    it ignores the threshold, the ``enabled`` switch and past failures. ``before`` runs once a compaction is
    decided, before the model is asked (the ``PreCompact`` hooks)."""
    tokens = counter.total(messages, system=system, tools=tools)
    if not force:
        if not config.enabled or not should_compact(tokens, window, config.threshold):
            return None
        if not state.allows_automatic(tokens, window):
            return None
    if before is not None:
        await before()
    try:
        result = await compact(
            messages, summarise, counter=counter, keep_ratio=config.keep_recent, system=system, tools=tools,
            keep=keep, must_shrink=not force,
        )
    except Exception:
        state.record_failure(tokens)
        raise
    state.record(result)
    return result


def model_summariser(provider: ChatProvider, model: str) -> Summarise:
    """A ``summarise`` backed by one streamed call of ``model``, with no tools: the answer's text."""
    from contextlib import aclosing

    from engine.provider.base import ChatRequest, TextChunk

    async def summarise(request: list[Message]) -> str:
        parts: list[str] = []
        chat = ChatRequest(model=model, messages=[message.to_wire() for message in request], tools=[])
        async with aclosing(provider.stream(chat)) as chunks:  # closed in this task, even when cancelled
            async for chunk in chunks:
                if isinstance(chunk, TextChunk):
                    parts.append(chunk.text)
        return "".join(parts)

    return summarise


def summary_request(older: Sequence[Message], focus: str | None = None) -> list[Message]:
    """The request that asks the model for the summary: instructions (with what the user asked it to focus on),
    then the transcript as plain text (so it needs no tools array and works with any server)."""
    transcript = "\n\n".join(render_message(message) for message in older)
    instructions = SUMMARY_INSTRUCTIONS
    if focus:
        instructions += f"\n\nThe user asks this summary to focus on: {focus}"
    return [
        Message.system(instructions),
        Message.user(f"<history>\n{transcript}\n</history>\n\nWrite the summary of this history now."),
    ]


def summary_message(summary: str, keep: Keep = Keep()) -> Message:
    """The message that takes the place of the summarised history: the model's summary, then what is kept
    verbatim."""
    kept = ""
    if keep.original_request:
        request = _cap(keep.original_request, MAX_ORIGINAL_REQUEST_CHARS)
        kept += f"\n\nThe user's original request, verbatim:\n{ORIGINAL_OPEN}\n{request}\n{ORIGINAL_CLOSE}"
    if keep.open_todos:
        kept += f"\n\nThe open todo items, verbatim:\n<open-todos>\n{keep.open_todos}\n</open-todos>"
    return Message.user(
        f"{SUMMARY_HEADER} The earlier part of this conversation was compacted to save context. "
        f"This is what it established:\n\n<summary>\n{summary}\n</summary>{kept}\n\n"
        "The messages after this one are verbatim. Continue the work from where it stands."
    )


def render_message(message: Message) -> str:
    """One message as transcript text, each part capped."""
    parts: list[str] = []
    if message.role == "tool":
        parts.append(f"[tool result: {message.name or 'tool'}]\n{_cap(message.content or '')}")
    elif message.content:
        parts.append(f"[{message.role}]\n{_cap(message.content)}")
    for call in message.tool_calls or ():
        parts.append(f"[assistant calls {call.function.name}] {_cap(_compact_json(call.function.arguments))}")
    if not parts:
        parts.append(f"[{message.role}] (empty)")
    return "\n".join(parts)


def _dropped(messages: Sequence[Message], before: int, reason: str, after: int | None = None) -> CompactionResult:
    return CompactionResult(
        applied=False,
        messages=tuple(messages),
        tokens_before=before,
        tokens_after=before if after is None else after,
        summary=None,
        reason=reason,
    )


def _cap(text: str, limit: int = MAX_TRANSCRIPT_MESSAGE_CHARS) -> str:
    if len(text) <= limit:
        return text
    head = limit * 2 // 3
    tail = limit - head
    return f"{text[:head]}\n[... {len(text) - limit} characters left out ...]\n{text[-tail:]}"


def _compact_json(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), ensure_ascii=False)
    except (json.JSONDecodeError, ValueError):
        return arguments
