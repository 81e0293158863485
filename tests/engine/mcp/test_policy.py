"""SPEC 22 policy for MCP tools: ask in default and auto-edit, blocked in plan unless read-only, allowed in yolo;
permissions.tools name patterns; "always" for one tool or a whole server."""

from __future__ import annotations

import pytest

from engine.modes import Mode
from engine.policy import Action, PermissionPolicy
from engine.tools.base import ToolKind

TOOL = "mcp__git__git_commit"


@pytest.mark.parametrize(
    ("mode", "kind", "expected"),
    [
        (Mode.DEFAULT, ToolKind.MCP, Action.ASK),
        (Mode.AUTO_EDIT, ToolKind.MCP, Action.ASK),
        (Mode.PLAN, ToolKind.MCP, Action.BLOCKED),
        (Mode.YOLO, ToolKind.MCP, Action.ALLOW),
        (Mode.PLAN, ToolKind.MCP_READ_ONLY, Action.ASK),
        (Mode.DEFAULT, ToolKind.MCP_READ_ONLY, Action.ASK),
        (Mode.YOLO, ToolKind.MCP_READ_ONLY, Action.ALLOW),
    ],
)
def test_mcp_tools_in_the_mode_matrix(mode: Mode, kind: ToolKind, expected: Action) -> None:
    assert PermissionPolicy(mode).decide(TOOL, kind, {}).action is expected


def test_pattern_rule_allows_every_tool_of_a_server() -> None:
    policy = PermissionPolicy(Mode.DEFAULT, tool_rules={"mcp__git__*": "allow", "mcp__git__git_push": "deny"})
    decision = policy.decide("mcp__git__git_status", ToolKind.MCP, {})
    assert decision.action is Action.ALLOW and "mcp__git__*" in decision.rule
    assert policy.decide("mcp__git__git_push", ToolKind.MCP, {}).action is Action.DENY
    assert policy.decide("mcp__time__get_current_time", ToolKind.MCP, {}).action is Action.ASK


def test_most_specific_pattern_wins() -> None:
    policy = PermissionPolicy(Mode.DEFAULT, tool_rules={"mcp__*": "deny", "mcp__git__*": "allow"})
    assert policy.decide("mcp__git__git_log", ToolKind.MCP, {}).action is Action.ALLOW
    assert policy.decide("mcp__other__x", ToolKind.MCP, {}).action is Action.DENY


def test_pattern_rule_cannot_unblock_a_tool_in_plan() -> None:
    policy = PermissionPolicy(Mode.PLAN, tool_rules={"mcp__git__*": "allow"})
    assert policy.decide(TOOL, ToolKind.MCP, {}).action is Action.BLOCKED
    assert policy.decide("mcp__git__git_status", ToolKind.MCP_READ_ONLY, {}).action is Action.ALLOW


def test_always_allows_the_one_tool_by_default() -> None:
    policy = PermissionPolicy(Mode.DEFAULT)
    decision = policy.decide(TOOL, ToolKind.MCP, {})
    assert decision.always_scope == f"every {TOOL} call"
    policy.allow_always(decision)
    assert policy.decide(TOOL, ToolKind.MCP, {}).action is Action.ALLOW
    assert policy.decide("mcp__git__git_add", ToolKind.MCP, {}).action is Action.ASK


def test_always_can_allow_the_whole_server() -> None:
    policy = PermissionPolicy(Mode.DEFAULT)
    policy.always_scopes[TOOL] = "mcp__git__*"
    decision = policy.decide(TOOL, ToolKind.MCP, {})
    assert decision.always_scope == "every mcp__git__* call"
    assert decision.allowances[0].config_entry() == ("tools", "mcp__git__*")
    policy.allow_always(decision)
    assert policy.decide("mcp__git__git_add", ToolKind.MCP, {}).action is Action.ALLOW
    assert policy.decide("mcp__time__x", ToolKind.MCP, {}).action is Action.ASK


def test_permissions_view_shows_the_mcp_rows() -> None:
    rows = dict(PermissionPolicy(Mode.PLAN).matrix())
    assert rows["MCP tools (mcp__<server>__<tool>)"] == "blocked (tool disabled)"
    assert rows["MCP tools annotated read-only (readOnlyHint)"] == "ask"
