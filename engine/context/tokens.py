"""Token counting (SPEC 1, 10): a counter that counts each message once, so a step of a long session costs only its
new messages, and bounds a request without counting it when the count cannot matter.

The encodings it counts with, and how they load with no network, are ``engine.context.encodings``'s.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engine.context.encodings import (
    CHARS_PER_TOKEN,
    CL100K,
    ESTIMATE,
    O200K,
    LoadedEncoding,
    encoding_name_for,
    load_encoding,
)
from engine.context.running_sums import RunningSums
from engine.context.server_report import ServerReport

if TYPE_CHECKING:
    from engine.messages import Message

__all__ = [
    "CHARS_PER_TOKEN", "CL100K", "ESTIMATE", "O200K", "LoadedEncoding", "TokenCounter", "encoding_name_for",
    "load_encoding",
]

# OpenAI's accounting of chat messages (the cookbook's "How to count tokens with tiktoken"): each message costs 3
# tokens of framing plus its fields, a name 1 more, and every reply is primed with 3. Tool calls have no published
# formula; their id/type/function framing is counted as a few tokens, and server usage corrects the rest.
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
TOKENS_PER_TOOL_CALL = 3
REPLY_PRIMING = 3


class TokenCounter:
    """Counts what a request costs: system prompt, tools and messages, each message once.

    ``total`` remembers the message sequence it last counted and its running sums, so when the session has grown
    by one message only that message is encoded: O(new message), whatever the history's length. A sequence that
    is not an extension of the last one (after a compaction, say) is summed again from per-message counts kept by
    identity; messages are never changed once appended to a session, so a count stays valid. ``correct`` takes
    the server's ``prompt_tokens`` for a request and shifts later totals by the difference.
    """

    def __init__(self, model: str, *, encoding: LoadedEncoding | None = None) -> None:
        """``encoding`` overrides the model's (loaded lazily by default)."""
        self._model = model
        self._encoding = encoding
        self._notice_taken = False
        self._correction = 0
        # How many server usage reports were taken (``correct``) or are waiting for the encoding to be: a count
        # made before the latest one is older news.
        self.usage_reports = 0
        # What the server said of the context, so a front end can show it without loading the encoding (tens of
        # megabytes): whether its answers carry usage (None until one has ended) and the context at the latest one.
        self.server_reports: bool | None = None
        self.server_context = 0
        self._reset_caches()

    def _reset_caches(self) -> None:
        self._exact = RunningSums()  # the exact counts of the history counted so far
        self._known: dict[int, tuple[Message, int]] = {}
        self._system: tuple[str, int] = ("", 0)
        self._tools: tuple[object, int] | None = None
        self._bounds = RunningSums()  # the byte bounds of the history bounded so far
        self._tools_bytes: tuple[object, int] = (None, 0)
        self._report: ServerReport | None = None  # the server's count of the latest request it reported

    @property
    def model(self) -> str:
        return self._model

    @property
    def encoding_name(self) -> str:
        """The encoding in use: ``o200k_base``, ``cl100k_base`` or ``estimate``."""
        return self.load().name

    @property
    def estimated(self) -> bool:
        return self.load().encoder is None

    @property
    def correction(self) -> int:
        """Tokens added to every total since the last ``correct`` (negative when the estimate was high)."""
        return self._correction

    def set_model(self, model: str) -> None:
        """Switches model; counts and the correction are dropped when the encoding changes with it."""
        if encoding_name_for(model) != encoding_name_for(self._model):
            self._encoding = None
            self._notice_taken = False
            self._correction = 0
            self._reset_caches()
        self._model = model

    def load(self) -> LoadedEncoding:
        """Loads the encoding now (a few tenths of a second the first time in a process); counting does it lazily,
        a caller that must not block may call this in a thread first."""
        if self._encoding is None:
            self._encoding = load_encoding(encoding_name_for(self._model))
        return self._encoding

    @property
    def ready(self) -> bool:
        """Whether the encoding is loaded: counting now costs no load."""
        return self._encoding is not None

    def upper_bound(
        self, messages: Sequence[Message], *, system: str = "", tools: Sequence[dict[str, Any]] = ()
    ) -> int:
        """At least ``total`` of the same request, known without counting what is not counted yet: the exact
        counts of the history's counted part, and for the rest its UTF-8 bytes (every token of every encoding here
        stands for one byte or more, so a text never costs more tokens than its bytes). Each message is measured
        once, so this costs only the messages new since the last call."""
        if not messages and not system:
            return 0
        counted = self._exact.summed_prefix(messages)
        exact = self._exact.total(counted)
        rest = self._bytes_after(messages, counted)
        fixed = self._system_bound(system) + self._tools_bound(tools) + REPLY_PRIMING
        bound = fixed + exact + rest + max(0, self._correction)
        reported = self._reported_bound(messages, system, tools)
        return bound if reported is None else min(bound, reported)

    def report(
        self, prompt_tokens: int, sent: Sequence[Message], *, system: str = "", tools: Sequence[dict[str, Any]] = ()
    ) -> None:
        """Takes the server's ``prompt_tokens`` for the request made of exactly these parts as the start of later
        ``upper_bound``s (``ServerReport``): the encoding need not load to know a request is far from the
        threshold."""
        if prompt_tokens > 0:
            self._report = ServerReport.of(prompt_tokens, sent, system, tools)

    def _reported_bound(self, messages: Sequence[Message], system: str, tools: Sequence[dict[str, Any]]) -> int | None:
        """The server's count of the last request plus the bytes of what is new since; None without a report that
        this request continues."""
        report = self._report
        if report is None or not report.continued_by(messages):
            return None
        rest = self._bytes_after(messages, report.count)
        changed = (0 if system == report.system else self._system_bound(system)) + (
            0 if tools is report.tools else self._tools_bound(tools)
        )
        return report.prompt_tokens + rest + changed + REPLY_PRIMING

    def _bytes_after(self, messages: Sequence[Message], start: int) -> int:
        """The byte bound of ``messages[start:]`` (each message measured once, as the history grows)."""
        if len(messages) <= start:
            return 0
        self._bounds.update(messages, _byte_bound)
        return self._bounds.total(len(messages)) - self._bounds.total(start)

    def meter(
        self, messages: Sequence[Message], *, system: str = "", tools: Sequence[dict[str, Any]] = ()
    ) -> tuple[int, str]:
        """The context the meter shows and where it comes from, loading nothing: the exact count once the encoding
        is loaded, else the server's latest usage, else about ``CHARS_PER_TOKEN`` bytes a token."""
        if self.ready:
            source = "an estimate (no token encoding)" if self.estimated else f"counted with {self.encoding_name}"
            return self.total(messages, system=system, tools=tools), source
        if self.server_reports:
            return self.server_context, "the server's usage, with each answer"
        rough = self.upper_bound(messages, system=system, tools=tools) // CHARS_PER_TOKEN if messages else 0
        return rough, "an estimate (4 bytes a token) until the server reports"

    def uncounted(self, messages: Sequence[Message]) -> list[Message]:
        """The messages of ``messages`` whose count is not known yet."""
        counted = self._exact.summed_prefix(messages)
        known = self._known
        return [m for m in messages[counted:] if (k := known.get(id(m))) is None or k[0] is not m]

    def measure(self, message: Message) -> int:
        """What ``count_message`` would find, without remembering it (``remember`` takes it)."""
        return self._measure(message)

    def remember(self, messages: Sequence[Message], counts: Sequence[int]) -> None:
        """Takes the counts ``measure`` found for ``messages``: counting them again is a look-up."""
        for message, count in zip(messages, counts, strict=True):
            self._known[id(message)] = (message, count)

    def _system_bound(self, system: str) -> int:
        if not system:
            return 0
        if self._system[0] == system:
            return self._system[1]
        return TOKENS_PER_MESSAGE + len(b"system") + len(system.encode())

    def _tools_bound(self, tools: Sequence[dict[str, Any]]) -> int:
        if not tools:
            return 0
        if self._tools is not None and self._tools[0] is tools:
            return self._tools[1]
        if self._tools_bytes[0] is not tools:
            text = json.dumps(list(tools), separators=(",", ":"), ensure_ascii=False)
            self._tools_bytes = (tools, len(text.encode()))
        return self._tools_bytes[1]

    def take_notice(self) -> str | None:
        """Why counts are not exact (estimate, or a stand-in encoding), the first time only; then None."""
        note = self.load().note
        if note is None or self._notice_taken:
            return None
        self._notice_taken = True
        return note

    def count_text(self, text: str) -> int:
        return self.load().count(text)

    def count_message(self, message: Message) -> int:
        """The tokens one message costs in a request, as it goes on the wire (reasoning is not sent back)."""
        known = self._known.get(id(message))
        if known is not None and known[0] is message:
            return known[1]
        count = self._measure(message)
        self._known[id(message)] = (message, count)
        return count

    def count_tools(self, tools: Sequence[dict[str, Any]]) -> int:
        """The ``tools`` array, as its compact JSON (servers render it differently; usage corrects the gap)."""
        if self._tools is not None and self._tools[0] is tools:
            return self._tools[1]
        count = self.count_text(json.dumps(list(tools), separators=(",", ":"), ensure_ascii=False)) if tools else 0
        self._tools = (tools, count)
        return count

    def total(self, messages: Sequence[Message], *, system: str = "", tools: Sequence[dict[str, Any]] = ()) -> int:
        """The tokens of a request made of ``system``, ``tools`` and ``messages``, corrected by server usage."""
        return max(0, self._raw_total(messages, system, tools) + self._correction)

    def correct(
        self,
        prompt_tokens: int,
        messages: Sequence[Message],
        *,
        system: str = "",
        tools: Sequence[dict[str, Any]] = (),
    ) -> None:
        """Takes the server's ``prompt_tokens`` for the request made of exactly these parts as the truth."""
        if prompt_tokens > 0:
            self._correction = prompt_tokens - self._raw_total(messages, system, tools)
            self.usage_reports += 1

    def _raw_total(self, messages: Sequence[Message], system: str, tools: Sequence[dict[str, Any]]) -> int:
        if not messages and not system:
            return 0
        return self._messages_total(messages) + self._system_tokens(system) + self.count_tools(tools) + REPLY_PRIMING

    def _system_tokens(self, system: str) -> int:
        if not system:
            return 0
        if self._system[0] != system:
            self._system = (system, TOKENS_PER_MESSAGE + self.count_text("system") + self.count_text(system))
        return self._system[1]

    def _messages_total(self, messages: Sequence[Message]) -> int:
        fresh: dict[int, tuple[Message, int]] = {}

        def count(message: Message) -> int:
            fresh[id(message)] = (message, counted := self.count_message(message))
            return counted

        if self._exact.update(messages, count):
            # A different history: only the counts of messages it still holds are kept.
            self._known = fresh
        return self._exact.total(len(messages))

    def _measure(self, message: Message) -> int:
        count = TOKENS_PER_MESSAGE + self.count_text(message.role) + self.count_text(message.content or "")
        if message.name and message.role in ("tool", "user"):
            count += self.count_text(message.name) + TOKENS_PER_NAME
        if message.tool_call_id:
            count += self.count_text(message.tool_call_id)
        for call in message.tool_calls or ():
            count += TOKENS_PER_TOOL_CALL + self.count_text(call.function.name)
            count += self.count_text(call.function.arguments)
        return count


def _byte_bound(message: Message) -> int:
    """At least what ``TokenCounter._measure`` finds for ``message``: bytes stand for tokens."""
    bound = TOKENS_PER_MESSAGE + len(message.role) + len((message.content or "").encode())
    if message.name:
        bound += len(message.name.encode()) + TOKENS_PER_NAME
    if message.tool_call_id:
        bound += len(message.tool_call_id.encode())
    for call in message.tool_calls or ():
        bound += TOKENS_PER_TOOL_CALL + len(call.function.name.encode()) + len(call.function.arguments.encode())
    return bound
