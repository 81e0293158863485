"""The sub-agent's tool calls listed, live, under the ``task`` call that started it (in the transcript and in the
tool-event log alike), and its whole conversation when the user expands it (a click on the lines).

The conversation comes from the sub-agent's ``MessageAdded`` events while it runs, and from the stored history
(``HistoryRestored.subagents``) in a resumed session, so it is the same before and after a restart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from textual import events
from textual.content import Content
from textual.widgets import Static

from coder_tui.transcript.stored_calls import parse_result, result_status, stored_key_argument
from coder_tui.transcript.subagent_calls import SubagentCalls
from coder_tui.widgets.sized_by_layout import SizedByLayout
from engine.counted import counted
from engine.events import Event, MessageAdded

# A line of the expanded conversation is cut to this many characters, a tool result to its first lines.
LINE_CHARS = 160
RESULT_LINES = 3


class SubagentCallsView(SizedByLayout, Static):
    """Empty (and hidden by its ``-empty`` class) until the sub-agent makes its first call or says something."""

    DEFAULT_CSS = """
    SubagentCallsView { &.-expandable:hover { background: $boost; } }
    """

    def __init__(self) -> None:
        super().__init__("", classes="subagent -empty")
        self._calls = SubagentCalls()
        self._messages: list[Mapping[str, Any]] = []
        self.expanded = False

    def apply(self, event: Event) -> None:
        if isinstance(event, MessageAdded):
            self._messages.append(event.message.to_record())
            self._refresh()
        elif self._calls.apply(event):
            self._refresh()

    def restore(self, records: Sequence[Mapping[str, Any]]) -> None:
        """A stored sub-agent conversation (message records, in order): its calls and its messages."""
        results = {r.get("tool_call_id"): r.get("content") or "" for r in records if r.get("role") == "tool"}
        for record in records:
            for call in record.get("tool_calls") or ():
                function = call.get("function") or {}
                result = results.get(call.get("id"))
                status = None if result is None else result_status(parse_result(result))
                self._calls.restore(call.get("id", ""), function.get("name", "?"),
                                    stored_key_argument(function.get("arguments", "")), status)
        self._messages.extend(records)
        self._refresh()

    @property
    def text(self) -> str:
        """The calls' lines as shown; empty before the first call."""
        return self._calls.content().plain if self._calls else ""

    @property
    def shown_text(self) -> str:
        """Everything shown: the calls, the conversation's line and, expanded, the conversation."""
        return str(self.visual) if self._calls or self._messages else ""

    @property
    def message_count(self) -> int:
        return len(self._messages)

    def toggle(self) -> None:
        """Shows or hides the sub-agent's conversation under its calls."""
        if self._messages:
            self.expanded = not self.expanded
            self._refresh()

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.toggle()

    def _refresh(self) -> None:
        parts: list[Content] = []
        if self._calls:
            parts.append(self._calls.content())
        if self._messages:
            # ▸ / ▾ as in a file tree: a click shows or hides what is under it.
            mark = "▾" if self.expanded else "▸"
            parts.append(Content.styled(f"{mark} conversation, {counted(len(self._messages), 'message')}", "$text-accent"))
            if self.expanded:
                parts.extend(conversation_lines(self._messages))
        self.update(Content("\n").join(parts))
        self.set_class(bool(self._messages), "-expandable")
        self.remove_class("-empty")


def conversation_lines(records: Sequence[Mapping[str, Any]]) -> list[Content]:
    """The conversation as indented lines: the prompt, each answer, each call and the start of its result."""
    lines: list[Content] = []
    for record in records:
        role = record.get("role")
        content = (record.get("content") or "").strip()
        if role == "user" and content:
            lines.append(_line("prompt", content, "bold"))
        elif role == "assistant":
            if content:
                lines.append(_line("answer", content, "$text"))
            for call in record.get("tool_calls") or ():
                function = call.get("function") or {}
                lines.append(_line(f"→ {function.get('name', '?')}", function.get("arguments", ""), "$text-muted"))
        elif role == "tool":
            for text in content.splitlines()[:RESULT_LINES] or [""]:
                lines.append(_line("  ←", text, "$text-muted"))
    return lines


def _line(label: str, text: str, style: str) -> Content:
    flat = " ".join(text.split())
    if len(flat) > LINE_CHARS:
        flat = flat[: LINE_CHARS - 1] + "…"
    return Content.assemble("  ", (label, "bold $text-accent"), " ", (flat, style))
