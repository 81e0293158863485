"""A resumed session's whole history (``HistoryRestored``) turned into transcript entries.

Entries are described first as cheap factories, one per entry, and the transcript builds only the ones on screen
(the tail at once, older ones as the user scrolls up), so resuming a 5,000-message session costs about the same as
resuming a short one. The records stay plain dicts: no model objects are built for the screen.

A tool call shows what it showed live: its output, or the diff it made (stored beside its message); a ``task``
call carries its sub-agent's conversation, to expand; a compaction is a "context compacted here" line.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from textual.widget import Widget

from coder_tui.formatting import format_tokens
from coder_tui.widgets.notice_line import NoticeLine
from coder_tui.widgets.tool_call_view import ToolCallView
from coder_tui.widgets.user_message import UserMessage
from engine.events import HistoryRestored, ToolStatus

Record = Mapping[str, Any]

# The argument a summary shows for a stored call (the engine's own key argument is not stored).
_KEY_ARGUMENTS = ("command", "path", "pattern", "url", "description", "question")


@dataclass(frozen=True)
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
    """A restored history parsed once (as plain dicts), for the transcript's entries and the tool log's rows."""

    def __init__(self, restored: HistoryRestored) -> None:
        self.entries: list[dict[str, Any]] = json.loads(restored.entries_json)
        self.subagents = restored.subagents
        # Each tool call's result text and diff, by call id.
        self.results: dict[str, tuple[str, str | None]] = {}
        for entry in self.entries:
            record = entry["record"]
            if entry["kind"] == "message" and record.get("role") == "tool" and record.get("tool_call_id"):
                self.results[record["tool_call_id"]] = (record.get("content") or "", entry.get("diff"))

    def factories(self) -> list[EntryFactory]:
        """One factory per entry the transcript shows, oldest first."""
        from coder_tui.widgets.markdown_lines import MarkdownLines

        factories: list[EntryFactory] = []
        results, subagents = self.results, self.subagents
        for entry in self.entries:
            record = entry["record"]
            if entry["kind"] == "compacted":
                text = compaction_text(entry["tokens_before"], entry["tokens_after"])
                factories.append(EntryFactory(lambda text=text: NoticeLine(text)))
                continue
            role = record.get("role")
            if role == "user" and (content := record.get("content")):
                factories.append(EntryFactory(lambda text=content: UserMessage(text), text_lines(content)))
            elif role == "assistant":
                if reasoning := record.get("reasoning"):
                    factories.append(EntryFactory(
                        lambda text=reasoning: MarkdownLines(text, classes="-entry -reasoning"), text_lines(reasoning)
                    ))
                if content := record.get("content"):
                    factories.append(EntryFactory(
                        lambda text=content: MarkdownLines(text, classes="-entry"), text_lines(content)
                    ))
                for call in record.get("tool_calls") or ():
                    call_id = call.get("id", "")
                    factories.append(EntryFactory(
                        lambda call=call, id=call_id: _stored_call(call, results.get(id), subagents.get(id, ()))
                    ))
        return factories

    def stored_calls(self, last: int) -> list[StoredCall]:
        """The last ``last`` tool calls, oldest first (a call without a result was cut off: cancelled)."""
        calls: list[StoredCall] = []
        for entry in reversed(self.entries):
            record = entry["record"]
            if entry["kind"] != "message" or record.get("role") != "assistant":
                continue
            for call in reversed(record.get("tool_calls") or ()):
                if len(calls) == last:
                    return calls[::-1]
                function = call.get("function") or {}
                result = self.results.get(call.get("id", ""))
                status = ToolStatus.CANCELLED if result is None else result_status(parse_result(result[0]))
                calls.append(StoredCall(call.get("id", ""), function.get("name", "?"),
                                        stored_key_argument(function.get("arguments", "")), status))
        return calls[::-1]


@dataclass(frozen=True)
class StoredCall:
    """A tool call of a restored history as the tool-event log shows it: tool, key argument, how it ended."""

    call_id: str
    tool: str
    key_argument: str
    status: ToolStatus


def stored_key_argument(arguments_text: str) -> str:
    """The argument a stored call's summary line shows, from its JSON arguments."""
    arguments = _parse_object(arguments_text)
    return next((str(arguments[name]) for name in _KEY_ARGUMENTS if name in arguments), "")


def result_status(result: Mapping[str, Any]) -> ToolStatus:
    return ToolStatus.SUCCESS if result.get("ok", True) is not False else ToolStatus.ERROR


def parse_result(text: str) -> dict[str, Any]:
    """A tool message's content as the result object the live call showed."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {"ok": True, "output": text}
    return value if isinstance(value, dict) else {"ok": True, "output": value}


def _stored_call(
    call: Record, result: tuple[str, str | None] | None, subagent: Sequence[Record]
) -> ToolCallView:
    function = call.get("function") or {}
    view = ToolCallView(call.get("id", ""), function.get("name", "?"), stored_key_argument(function.get("arguments", "")))
    if subagent:
        view.restore_subagent(subagent)
    if result is None:
        view.set_status(ToolStatus.CANCELLED)
        return view
    text, diff = result
    parsed = parse_result(text)
    view.show_result(result_status(parsed), parsed, diff=diff)
    return view


def _parse_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}
