"""A stored conversation turned into transcript entries, for a resumed session.

Entries are described first as cheap factories and only the last few are built (finished text as light
``MarkdownLines`` widgets), so resuming a 5,000-message session costs the same as resuming a short one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from textual.widget import Widget

from coder_tui.widgets.tool_call_view import ToolCallView
from coder_tui.widgets.user_message import UserMessage
from engine.events import ToolStatus

if TYPE_CHECKING:
    from engine.messages import Message, ToolCall

EntryFactory = Callable[[], Widget]

# The argument a summary shows for a stored call (the engine's own key argument is not stored).
_KEY_ARGUMENTS = ("command", "path", "pattern", "url", "description", "question")


def history_factories(messages: Sequence[Message]) -> list[EntryFactory]:
    """One factory per entry the transcript would show for these messages, oldest first."""
    from coder_tui.widgets.markdown_lines import MarkdownLines

    factories: list[EntryFactory] = []
    results = {m.tool_call_id: m.content or "" for m in messages if m.role == "tool" and m.tool_call_id}
    for message in messages:
        if message.role == "user" and message.content:
            factories.append(lambda text=message.content: UserMessage(text))
        elif message.role == "assistant":
            if message.reasoning:
                factories.append(lambda text=message.reasoning: MarkdownLines(text, classes="-entry -reasoning"))
            if message.content:
                factories.append(lambda text=message.content: MarkdownLines(text, classes="-entry"))
            for call in message.tool_calls or []:
                factories.append(lambda call=call: _stored_call(call, results.get(call.id)))
    return factories


def _stored_call(call: ToolCall, result_text: str | None) -> ToolCallView:
    try:
        arguments = call.parsed_arguments()
    except ValueError:
        arguments = {}
    key = next((str(arguments[name]) for name in _KEY_ARGUMENTS if name in arguments), "")
    view = ToolCallView(call.id, call.name, key)
    if result_text is None:
        view.set_status(ToolStatus.CANCELLED)
        return view
    result = _parse_result(result_text)
    status = ToolStatus.SUCCESS if result.get("ok", True) is not False else ToolStatus.ERROR
    view.show_result(status, result)
    return view


def _parse_result(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {"ok": True, "output": text}
    return value if isinstance(value, dict) else {"ok": True, "output": value}
