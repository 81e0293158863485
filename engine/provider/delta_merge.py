"""Joins the pieces of a field a server streams beyond the standard ones (``reasoning_content``,
``reasoning_details``, ``extra_content``...), so the whole value can be sent back unchanged.

The rule is the one Chat Completions deltas follow: text that streams (``text``, ``reasoning_content``...) is
concatenated, list items that carry an ``index`` are merged into the item with the same index, objects are merged
key by key, and any other value (an id, a type, a signature sent whole) is replaced by the latest one, so a server
that repeats it on every delta does not double it.
"""

from __future__ import annotations

from typing import Any

# Keys whose string values arrive piece by piece.
STREAMED_TEXT_KEYS = frozenset(
    {"text", "content", "reasoning", "reasoning_content", "thinking", "summary", "arguments", "refusal"}
)


def merge_fields(into: dict[str, Any], delta: dict[str, Any]) -> None:
    """Merges ``delta`` into ``into`` in place."""
    for key, value in delta.items():
        if value is None:
            continue
        into[key] = merge_value(key, into.get(key), value)


def merge_value(key: str, current: Any, value: Any) -> Any:
    if current is None:
        return _copy(value)
    if isinstance(current, str) and isinstance(value, str):
        return current + value if key in STREAMED_TEXT_KEYS else value
    if isinstance(current, dict) and isinstance(value, dict):
        merge_fields(current, value)
        return current
    if isinstance(current, list) and isinstance(value, list):
        _merge_items(current, value)
        return current
    return _copy(value)


def _merge_items(items: list[Any], new_items: list[Any]) -> None:
    for item in new_items:
        index = item.get("index") if isinstance(item, dict) else None
        target = next(
            (old for old in items if isinstance(old, dict) and index is not None and old.get("index") == index), None
        )
        if target is None:
            items.append(_copy(item))
        else:
            merge_fields(target, item)


def _copy(value: Any) -> Any:
    """A copy of the containers, so merging later deltas never changes a value a caller still holds."""
    if isinstance(value, dict):
        return {key: _copy(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_copy(inner) for inner in value]
    return value
