"""The ``todoread`` and ``todowrite`` tools (SPEC 5, 9): the model's view of the session's todo list.

Both are READ tools in the mode matrix: they touch no file, and todowrite is allowed in every mode (SPEC 4).
The list lives in ``ToolContext.todos``; the orchestrator announces a change (``TodosChanged``) after todowrite.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from engine.errors import ToolError
from engine.messages import ToolDef
from engine.tools.base import Tool, ToolContext, ToolKind, ToolOutput, json_schema
from engine.workflow.todos import TodoError, TodoList, TodoSpec


class TodoReadParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TodoWriteParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    todos: list[TodoSpec] = Field(
        description="The complete new list, in order. It replaces the old one: include every item you keep."
    )


def _listing(todos: TodoList) -> dict[str, Any]:
    return {"todos": todos.to_records(), "summary": todos.summary()}


class TodoReadTool(Tool[TodoReadParams]):
    name = "todoread"
    description = (
        "Read the session's todo list: each item's id, content and status (pending, in_progress, completed, "
        "cancelled). Use it to check where a multi-step task stands."
    )
    params = TodoReadParams
    kind = ToolKind.READ

    def key_argument(self, params: TodoReadParams) -> str:
        return ""

    async def run(self, params: TodoReadParams, ctx: ToolContext) -> ToolOutput:
        return ToolOutput(data=_listing(ctx.todos))


class TodoWriteTool(Tool[TodoWriteParams]):
    name = "todowrite"
    description = (
        "Write the session's todo list, replacing it whole. Use it for any task of three or more steps: write "
        "the plan first, mark the item you start in_progress (only one at a time), and mark each item completed "
        "as soon as it is done (cancelled if it is dropped). The user sees the list live."
    )
    params = TodoWriteParams
    kind = ToolKind.READ

    def definition(self) -> ToolDef:
        # The item schema is inlined: some OpenAI-compatible servers (llama.cpp, older Ollama) ignore "$ref".
        schema = json_schema(self.params)
        definitions = schema.pop("$defs")
        schema["properties"]["todos"]["items"] = definitions["TodoSpec"]
        return ToolDef(name=self.name, description=self.description, parameters=schema)

    def key_argument(self, params: TodoWriteParams) -> str:
        return f"{len(params.todos)} item(s)"

    async def run(self, params: TodoWriteParams, ctx: ToolContext) -> ToolOutput:
        try:
            ctx.todos.replace([spec.to_item() for spec in params.todos])
        except TodoError as exc:
            raise ToolError(f"todo list not changed: {exc}") from exc
        return ToolOutput(data=_listing(ctx.todos))
