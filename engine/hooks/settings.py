"""The ``hooks`` key of the config, as Claude Code writes it::

    "hooks": {
      "PostToolUse": [
        {"matcher": "write|edit|patch", "hooks": [{"type": "command", "command": "ruff format .", "timeout": 30}]}
      ]
    }

``matcher`` is a regular expression over the tool name (whole name, case-insensitive, so Claude Code's ``Bash``
matches ``bash``); empty or ``*`` matches every tool. Events without a tool ignore it.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

HookEvent = Literal[
    "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "Notification", "PreCompact"
]
HOOK_EVENTS: tuple[str, ...] = (
    "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "Notification", "PreCompact"
)
DEFAULT_TIMEOUT_S = 60.0


class HookCommand(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["command"] = "command"
    command: str = Field(min_length=1)
    timeout: float = Field(default=DEFAULT_TIMEOUT_S, gt=0, le=3600)


class HookMatcher(BaseModel):
    model_config = ConfigDict(extra="forbid")

    matcher: str = ""
    hooks: list[HookCommand] = Field(default_factory=list)

    @field_validator("matcher")
    @classmethod
    def _valid_pattern(cls, value: str) -> str:
        if value not in ("", "*"):
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"matcher {value!r} is not a valid regular expression: {exc}") from exc
        return value

    def matches(self, tool_name: str | None) -> bool:
        if self.matcher in ("", "*") or tool_name is None:
            return True
        return re.fullmatch(self.matcher, tool_name, flags=re.IGNORECASE) is not None


HooksConfig = dict[HookEvent, list[HookMatcher]]
