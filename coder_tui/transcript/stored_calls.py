"""A stored tool call read back as the live call showed it: the argument its summary line shows, its result
object, and whether it succeeded."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from engine.events import ToolStatus

# The argument a summary shows for a stored call (the engine's own key argument is not stored).
_KEY_ARGUMENTS = ("command", "path", "pattern", "url", "description", "question")


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


def _parse_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}
