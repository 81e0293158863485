"""A resumed session's whole history (``HistoryRestored``) turned into transcript entries.

Entries are described as cheap factories, one per entry, from the end and only as the transcript takes them, and the
transcript builds only the ones on screen (the tail at once, older ones as the user scrolls up), so resuming a
5,000-message session costs little more than resuming a short one. The records stay plain dicts: no model objects are built for the screen.

A long answer is shown in pieces (``answer_pieces``), so only the pieces on screen are rendered at first; a live
exchange given back to the history (pruned) keeps its answer whole, one entry as it was shown.

A tool call shows what it showed live: its output, or the diff it made (stored beside its message); a ``task``
call carries its sub-agent's conversation, to expand; a compaction is a "context compacted here" line.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from textual.widget import Widget

from coder_tui.transcript.answer_pieces import answer_pieces
from coder_tui.transcript.formatting import format_tokens
from coder_tui.transcript.stored_calls import parse_result, result_status, stored_key_argument
from coder_tui.widgets.notice_line import NoticeLine
from coder_tui.widgets.tool_call_view import ToolCallView
from coder_tui.widgets.user_message import UserMessage
from engine.context.added_blocks import split_added
from engine.events import HistoryRestored, ToolStatus
from engine.record import record

Record = Mapping[str, Any]

@record
class EntryFactory:
    """Builds one transcript entry of a restored history. ``lines``: the least it takes on screen (its top margin and
    a line per line of its text), so the transcript builds only the entries that fill its height."""

    build: Callable[[], Widget]
    lines: int = 2

    def __call__(self) -> Widget:
        return self.build()


def text_lines(text: str) -> int:
    """An entry of ``text``: its margin and at least a line per line of text."""
    return 2 + text.count("\n")


def compaction_text(tokens_before: int, tokens_after: int) -> str:
    """The transcript's line for a compaction, live or resumed."""
    return f"context compacted here: {format_tokens(tokens_before)} → {format_tokens(tokens_after)} tokens"


class RestoredHistory:
    """A restored history parsed once (as plain dicts), for the transcript's entries and the tool log's rows. Both
    want its end: entries are described from the end (``pending``), and each call's result is looked up in the
    entries after it, read from the end as far as needed."""

    def __init__(self, restored: HistoryRestored) -> None:
        self._start(json.loads(restored.entries_json), restored.subagents, in_pieces=True)

    @classmethod
    def of_entries(cls, entries: list[dict[str, Any]]) -> RestoredHistory:
        """A history made of ``RestoredEntry`` dicts already at hand (a live exchange the transcript pruned)."""
        history = cls.__new__(cls)
        history._start(entries, {}, in_pieces=False)
        return history

    def _start(
        self, entries: list[dict[str, Any]], subagents: dict[str, tuple[dict[str, Any], ...]], *, in_pieces: bool
    ) -> None:
        self.entries = entries
        self.subagents = subagents
        # Long answers as pieces, each an entry of its own (a restored history), or whole.
        self._in_pieces = in_pieces
        # Each tool call's result, by call id, from the entries at ``_results_from`` onwards.
        self._results: dict[str, StoredResult] = {}
        self._results_from = len(self.entries)

    def pending(self) -> PendingEntries:
        """Every entry the transcript shows, none built or even described yet."""
        count = sum(_entry_count(entry, self._in_pieces) for entry in self.entries)
        return PendingEntries(self._newest_first(), count)

    def _newest_first(self) -> Iterator[EntryFactory]:
        for index in range(len(self.entries) - 1, -1, -1):
            yield from reversed(self._factories(index))

    def _factories(self, index: int) -> list[EntryFactory]:
        """The factories of the entry at ``index``, in order (``_entry_count`` counts them)."""
        from coder_tui.widgets.markdown_lines import MarkdownLines

        entry = self.entries[index]
        record = entry["record"]
        if entry["kind"] == "compacted":
            text = compaction_text(entry["tokens_before"], entry["tokens_after"])
            return [EntryFactory(lambda: NoticeLine(text))]
        role = record.get("role")
        if role == "user" and record.get("origin") == "note":
            note = note_text(record.get("content") or "")
            return [EntryFactory(lambda: NoticeLine(note), text_lines(note))]
        if role == "user" and (content := split_added(record.get("content") or "")[0]):
            return [EntryFactory(lambda: UserMessage(content), text_lines(content))]
        if role != "assistant":
            return []
        factories: list[EntryFactory] = []
        if reasoning := record.get("reasoning"):
            factories.append(EntryFactory(
                lambda: MarkdownLines(reasoning, classes="-entry -reasoning"), text_lines(reasoning)
            ))
        if answer := record.get("content"):
            factories += [
                EntryFactory(lambda piece=piece: MarkdownLines(piece, classes="-entry"), text_lines(piece))
                for piece in (answer_pieces(answer) if self._in_pieces else (answer,))
            ]
        subagents = self.subagents
        for call in record.get("tool_calls") or ():
            call_id = call.get("id", "")
            result = self._result(call_id, index)
            factories.append(EntryFactory(
                lambda call=call, result=result, id=call_id: _stored_call(call, result, subagents.get(id, ()))
            ))
        return factories

    def _result(self, call_id: str, call_index: int) -> StoredResult | None:
        """The result of a call the entry at ``call_index`` made (its tool message comes after it; None: there is
        none, the call was cut off)."""
        for entry in reversed(self.entries[call_index + 1:self._results_from]):
            record = entry["record"]
            if entry["kind"] == "message" and record.get("role") == "tool" and record.get("tool_call_id"):
                self._results.setdefault(record["tool_call_id"], StoredResult.of(record, entry.get("diff")))
        self._results_from = min(self._results_from, call_index + 1)
        return self._results.get(call_id)

    def stored_calls(self, last: int) -> list[StoredCall]:
        """The last ``last`` tool calls, oldest first (a call without a result was cut off: cancelled)."""
        calls: list[StoredCall] = []
        for index in range(len(self.entries) - 1, -1, -1):
            entry = self.entries[index]
            record = entry["record"]
            if entry["kind"] != "message" or record.get("role") != "assistant":
                continue
            for call in reversed(record.get("tool_calls") or ()):
                if len(calls) == last:
                    return calls[::-1]
                function = call.get("function") or {}
                result = self._result(call.get("id", ""), index)
                status = ToolStatus.CANCELLED if result is None else result.status
                calls.append(StoredCall(call.get("id", ""), function.get("name", "?"),
                                        stored_key_argument(function.get("arguments", "")), status))
        return calls[::-1]


def _entry_count(entry: Record, in_pieces: bool) -> int:
    """How many transcript entries a history entry makes (as ``RestoredHistory._factories``, without making them)."""
    if entry["kind"] == "compacted":
        return 1
    record = entry["record"]
    role = record.get("role")
    if role == "user":
        return 1 if record.get("origin") == "note" or split_added(record.get("content") or "")[0] else 0
    if role != "assistant":
        return 0
    content = record.get("content")
    answers = (len(answer_pieces(content)) if in_pieces else 1) if content else 0
    return bool(record.get("reasoning")) + answers + len(record.get("tool_calls") or ())


class PendingEntries:
    """A restored history's entries not built yet, oldest first; the transcript takes them from the newest end. They
    are described (``EntryFactory``) only as they are taken, so a long history costs little more than a short one.
    Entries the transcript builds and later prunes are given back."""

    def __init__(self, newest_first: Iterator[EntryFactory] = iter(()), count: int = 0) -> None:
        self._source = newest_first
        self._in_source = count
        # Given back, oldest first: all newer than the entries still in the source.
        self._given_back: list[EntryFactory] = []

    def __len__(self) -> int:
        return self._in_source + len(self._given_back)

    def take(self, count: int) -> list[EntryFactory]:
        """The newest ``count`` entries (fewer if there are not so many), oldest first."""
        taken: list[EntryFactory] = []
        while len(taken) < count and (newest := self._take_newest()) is not None:
            taken.append(newest)
        return taken[::-1]

    def take_filling(self, lines: int, most: int) -> list[EntryFactory]:
        """The newest entries that fill ``lines`` lines, ``most`` of them at most, oldest first."""
        taken: list[EntryFactory] = []
        filled = 0
        while filled < lines and len(taken) < most and (newest := self._take_newest()) is not None:
            taken.append(newest)
            filled += newest.lines
        return taken[::-1]

    def give_back(self, factory: EntryFactory) -> None:
        """An entry built from this history and pruned again, newer than every entry still here."""
        self._given_back.append(factory)

    def _take_newest(self) -> EntryFactory | None:
        if self._given_back:
            return self._given_back.pop()
        if not self._in_source:
            return None
        self._in_source -= 1
        return next(self._source)


@record
class StoredCall:
    """A tool call of a restored history as the tool-event log shows it: tool, key argument, how it ended."""

    call_id: str
    tool: str
    key_argument: str
    status: ToolStatus


@record
class StoredResult:
    """A call's stored result as the live call showed it: its final state (stored beside the result; an older
    session's is read from the result), the result, its diff and how long the call ran."""

    status: ToolStatus
    parsed: dict[str, Any]
    diff: str | None = None
    duration_ms: float | None = None

    @classmethod
    def of(cls, record: Record, diff: str | None) -> StoredResult:
        parsed = parse_result(record.get("content") or "")
        stored = record.get("status")
        status = ToolStatus(stored) if stored in _FINAL_STATES else result_status(parsed)
        return cls(status, parsed, diff, record.get("duration_ms"))


_FINAL_STATES = frozenset(status.value for status in (
    ToolStatus.SUCCESS, ToolStatus.ERROR, ToolStatus.DENIED, ToolStatus.CANCELLED
))


def note_text(content: str) -> str:
    """How the transcript shows a note the engine gave the model about the user's action (an undo)."""
    return f"note to the model: {content}"


def _stored_call(call: Record, result: StoredResult | None, subagent: Sequence[Record]) -> ToolCallView:
    function = call.get("function") or {}
    view = ToolCallView(call.get("id", ""), function.get("name", "?"), stored_key_argument(function.get("arguments", "")))
    if subagent:
        view.restore_subagent(subagent)
    if result is None:
        view.set_status(ToolStatus.CANCELLED)
        return view
    view.show_result(result.status, result.parsed, diff=result.diff, duration_ms=result.duration_ms)
    return view