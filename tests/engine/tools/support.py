"""Helpers shared by the tool tests."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from engine.tools import glob as glob_module
from engine.tools import grep as grep_module
from engine.tools.base import Tool, ToolContext, ToolOutput


async def run_tool(tool: Tool[Any], ctx: ToolContext, **arguments: Any) -> ToolOutput:
    """Validates ``arguments`` as the orchestrator does, then runs the tool."""
    return await tool.run(tool.parse(arguments), ctx)


def with_limits(ctx: ToolContext, **limits: Any) -> ToolContext:
    """The same context with some limits changed (small caps keep the tests small)."""
    return dataclasses.replace(ctx, limits=dataclasses.replace(ctx.limits, **limits))


def use_search_backend(monkeypatch: pytest.MonkeyPatch, backend: str) -> None:
    """"rg" leaves things as they are; "python" hides rg so glob and grep take their pure-Python fallback."""
    if backend == "python":
        monkeypatch.setattr(glob_module, "find_ripgrep", lambda: None)
        monkeypatch.setattr(grep_module, "find_ripgrep", lambda: None)
