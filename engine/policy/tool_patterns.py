"""Tool-name patterns in ``permissions.tools`` and session allowances: ``"mcp__git__*": "allow"`` covers every tool
of the MCP server ``git``. ``*`` matches any run of characters; everything else is literal. An exact name beats any
pattern; among patterns the longest literal text wins, then the stricter action."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

from engine.policy.decision import STRICTNESS, Action


def is_pattern(name: str) -> bool:
    return "*" in name


def name_matches(pattern: str, tool: str) -> bool:
    return pattern == tool or (is_pattern(pattern) and _regex(pattern).fullmatch(tool) is not None)


def matching_rule(rules: Mapping[str, Action], tool: str) -> tuple[str, Action] | None:
    """The rule for ``tool``: its exact entry, else the most specific pattern that matches; None if none does."""
    if tool in rules:
        return tool, rules[tool]
    matching = [(pattern, action) for pattern, action in rules.items() if name_matches(pattern, tool)]
    if not matching:
        return None
    return max(matching, key=lambda item: (len(item[0].replace("*", "")), STRICTNESS[item[1]]))


@lru_cache(maxsize=256)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(piece) for piece in pattern.split("*")), re.DOTALL)
