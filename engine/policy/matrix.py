"""The mode matrix of SPEC 4, as data: one cell per (row, mode), read by the policy and shown by /permissions."""

from __future__ import annotations

from engine.modes import Mode
from engine.policy.bash_readonly import Access
from engine.policy.decision import Action
from engine.tools.base import ToolKind

_A, _Q, _B = Action.ALLOW, Action.ASK, Action.BLOCKED

TOOL_CELLS: dict[ToolKind, dict[Mode, Action]] = {
    ToolKind.READ: {Mode.PLAN: _A, Mode.DEFAULT: _A, Mode.AUTO_EDIT: _A, Mode.YOLO: _A},
    ToolKind.EDIT: {Mode.PLAN: _B, Mode.DEFAULT: _Q, Mode.AUTO_EDIT: _A, Mode.YOLO: _A},
    ToolKind.SUBAGENT: {Mode.PLAN: _B, Mode.DEFAULT: _Q, Mode.AUTO_EDIT: _A, Mode.YOLO: _A},
    ToolKind.INTERACT: {Mode.PLAN: _A, Mode.DEFAULT: _A, Mode.AUTO_EDIT: _A, Mode.YOLO: _A},
    # bash as a whole; each command is then judged by the BASH_CELLS below.
    ToolKind.EXECUTE: {Mode.PLAN: _Q, Mode.DEFAULT: _Q, Mode.AUTO_EDIT: _Q, Mode.YOLO: _A},
    # MCP tools (SPEC 22): they ask, except in yolo; in plan only those annotated read-only may run.
    ToolKind.MCP: {Mode.PLAN: _B, Mode.DEFAULT: _Q, Mode.AUTO_EDIT: _Q, Mode.YOLO: _A},
    ToolKind.MCP_READ_ONLY: {Mode.PLAN: _Q, Mode.DEFAULT: _Q, Mode.AUTO_EDIT: _Q, Mode.YOLO: _A},
}
BASH_CELLS: dict[Access, dict[Mode, Action]] = {
    Access.READ_ONLY: {Mode.PLAN: _A, Mode.DEFAULT: _A, Mode.AUTO_EDIT: _A, Mode.YOLO: _A},
    Access.OTHER: {Mode.PLAN: _Q, Mode.DEFAULT: _Q, Mode.AUTO_EDIT: _Q, Mode.YOLO: _A},
    Access.MUTATING_GIT: {Mode.PLAN: _B, Mode.DEFAULT: _Q, Mode.AUTO_EDIT: _Q, Mode.YOLO: _A},
}
TOOL_ROWS: dict[ToolKind, str] = {
    ToolKind.READ: "read, list, glob, grep, todoread, todowrite, skill",
    ToolKind.EDIT: "write, edit, patch",
    ToolKind.SUBAGENT: "task (sub-agent)",
    ToolKind.INTERACT: "question",
    ToolKind.MCP: "MCP tools (mcp__<server>__<tool>)",
    ToolKind.MCP_READ_ONLY: "MCP tools annotated read-only (readOnlyHint)",
}
BASH_ROWS: dict[Access, str] = {
    Access.READ_ONLY: "bash: read-only whitelist (ls, cat, grep, rg, find without -exec, git status/diff/log...)",
    Access.OTHER: "bash: other commands",
    Access.MUTATING_GIT: "bash: mutating git commands (commit, push, reset, checkout, clean...)",
}


def tool_cell(mode: Mode, kind: ToolKind) -> Action:
    return TOOL_CELLS[kind][mode]


def bash_cell(mode: Mode, access: Access, strict: bool = False) -> Action:
    """The matrix's answer for one bash command; the strict preset asks even for read-only ones."""
    cell = BASH_CELLS[access][mode]
    return Action.ASK if strict and cell is Action.ALLOW and mode is not Mode.YOLO else cell


def rows(mode: Mode, strict: bool = False) -> list[tuple[str, str]]:
    """The matrix column in force, in the SPEC's words."""
    table: list[tuple[str, str]] = []
    for kind, label in TOOL_ROWS.items():
        cell = tool_cell(mode, kind)
        table.append((label, "enabled" if kind is ToolKind.INTERACT else _cell_text(cell)))
    for access, label in BASH_ROWS.items():
        table.append((label, _cell_text(bash_cell(mode, access, strict))))
    yolo = mode is Mode.YOLO
    table.append(("bash: policy deny patterns", Action.ALLOW.value if yolo else Action.DENY.value))
    table.append(("bash: risk reasons (rm -rf, sudo, curl | sh, > existing file...)", "not checked" if yolo else "ask"))
    return table


def _cell_text(cell: Action) -> str:
    return "blocked (tool disabled)" if cell is Action.BLOCKED else cell.value
