"""SPEC 5: the todoread and todowrite tools on the session's list."""

from __future__ import annotations

import pytest

from engine.errors import ToolError
from engine.events import TodoItem
from engine.tools.base import ToolContext, ToolKind
from engine.tools.todo import TodoReadTool, TodoWriteTool
from tests.engine.tools.support import run_tool


async def test_todowrite_replaces_the_list_and_todoread_returns_it(ctx: ToolContext) -> None:
    todos = [
        {"id": "1", "content": "Read the parser", "status": "completed"},
        {"id": "2", "content": "Fix the bug", "status": "in_progress"},
        {"id": "3", "content": "Add a test"},
    ]
    written = await run_tool(TodoWriteTool(), ctx, todos=todos)
    assert written.data["summary"] == "1 of 3 done, 1 in progress"
    assert ctx.todos.items[2] == TodoItem(id="3", content="Add a test", status="pending")
    read = await run_tool(TodoReadTool(), ctx)
    assert read.data["todos"] == [
        {"id": "1", "content": "Read the parser", "status": "completed"},
        {"id": "2", "content": "Fix the bug", "status": "in_progress"},
        {"id": "3", "content": "Add a test", "status": "pending"},
    ]


async def test_todowrite_refuses_an_invalid_list_and_keeps_the_old_one(ctx: ToolContext) -> None:
    await run_tool(TodoWriteTool(), ctx, todos=[{"id": "1", "content": "keep me"}])
    with pytest.raises(ToolError, match=r"todo list not changed: only one todo may be in_progress"):
        await run_tool(
            TodoWriteTool(),
            ctx,
            todos=[{"id": "a", "content": "x", "status": "in_progress"}, {"id": "b", "content": "y",
                                                                          "status": "in_progress"}],
        )
    with pytest.raises(ToolError, match=r"invalid arguments for todowrite: todos\.0\.status"):
        await run_tool(TodoWriteTool(), ctx, todos=[{"id": "a", "content": "x", "status": "finished"}])
    assert [t.content for t in ctx.todos.items] == ["keep me"]


async def test_an_empty_list_clears_the_todos(ctx: ToolContext) -> None:
    await run_tool(TodoWriteTool(), ctx, todos=[{"id": "1", "content": "x"}])
    cleared = await run_tool(TodoWriteTool(), ctx, todos=[])
    assert cleared.data == {"todos": [], "summary": "no todos"}


def test_todo_tools_are_read_kind_with_self_contained_schemas() -> None:
    assert TodoReadTool.kind is ToolKind.READ and TodoWriteTool.kind is ToolKind.READ
    parameters = TodoWriteTool().definition().parameters
    assert "$defs" not in parameters and "$ref" not in str(parameters)
    item = parameters["properties"]["todos"]["items"]
    assert item["properties"]["status"]["enum"] == ["pending", "in_progress", "completed", "cancelled"]
    assert item["required"] == ["id", "content"]
    assert TodoReadTool().definition().parameters["properties"] == {}


def test_each_session_context_has_its_own_list(ctx: ToolContext) -> None:
    other = ToolContext(workspace=ctx.workspace)
    assert other.todos is not ctx.todos
