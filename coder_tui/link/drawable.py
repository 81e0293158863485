"""Everything the engine sends, made drawable before any widget sees it (SPEC 25).

The engine's replies are the UI's one source of outside text: the model's answer and reasoning, tool arguments,
results and diffs, file names, MCP and hook output, server errors, a resumed session's history. ``drawable`` walks
a decoded protocol message and passes every string in it (dict keys and values, records, tuples, a resumed
history's JSON) through ``terminal_text``, so no widget has to remember to.

What the user is asked to approve is shown with nothing hidden instead (``visible_text``): an approval's key
argument (the command) with its newlines, tabs, carriage returns and escape sequences marked, its preview (the diff)
likewise, its lines kept as lines.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, TypeVar

from coder_tui.link.terminal_text import is_drawable, terminal_text, visible_text

T = TypeVar("T")


def drawable(value: T) -> T:
    """``value`` with every string in it made safe to draw; unchanged parts are returned as they are."""
    return _clean(value)  # type: ignore[no-any-return]


def _clean(value: Any) -> Any:
    kind = type(value)
    if kind is str:
        return terminal_text(value)
    if kind is dict:
        return {_clean(key): _clean(item) for key, item in value.items()}
    if kind is list:
        return [_clean(item) for item in value]
    if kind is tuple:
        return tuple(_clean(item) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _clean_record(value)
    return value  # numbers, booleans, None, enums (their values are the engine's own names)


def _clean_record(value: Any) -> Any:
    from engine.interaction import ApprovalRequest  # loaded by then: the protocol's decoder knows it

    if isinstance(value, ApprovalRequest):
        value = dataclasses.replace(
            value,
            key_argument=visible_text(value.key_argument),
            preview=None if value.preview is None else visible_text(value.preview, mark_newlines=False),
        )
    changes: dict[str, Any] = {}
    for field in dataclasses.fields(value):
        if not field.init:
            continue
        before = getattr(value, field.name)
        if field.name == "entries_json" and isinstance(before, str):
            # A resumed history travels as JSON text: its strings hold escapes (\u001b) that decode to controls.
            # Most histories hold none: they cross as they are, not parsed and written again.
            clean = "\\u00" not in before and is_drawable(before)
            after: Any = before if clean else json.dumps(_clean(json.loads(before)), ensure_ascii=False)
        else:
            after = _clean(before)
        if after is not before and after != before:
            changes[field.name] = after
    return dataclasses.replace(value, **changes) if changes else value
