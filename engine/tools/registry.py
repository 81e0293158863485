"""The tools offered to the model in a session, by name, and their OpenAI ``tools`` array."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.messages import ToolDef
from engine.tools.base import Tool
from engine.tools.bash import BashTool
from engine.tools.edit import EditTool
from engine.tools.glob import GlobTool
from engine.tools.grep import GrepTool
from engine.tools.list_dir import ListTool
from engine.tools.patch import PatchTool
from engine.tools.read import ReadTool
from engine.tools.todo import TodoReadTool, TodoWriteTool
from engine.tools.write import WriteTool


class ToolRegistry:
    """Tools by name, in registration order (the order the model sees them in)."""

    def __init__(self, tools: Iterable[Tool[Any]] = ()) -> None:
        self._tools: dict[str, Tool[Any]] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool[Any]) -> None:
        """Adds ``tool``; a second tool with the same name is a programming error, not a silent replacement."""
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def unregister(self, name: str) -> None:
        """Removes a tool that comes and goes with its source (an MCP server's); unknown names are ignored."""
        self._tools.pop(name, None)

    def get(self, name: str) -> Tool[Any] | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def definitions(self) -> list[ToolDef]:
        return [tool.definition() for tool in self._tools.values()]

    def wire(self) -> list[dict[str, Any]]:
        """The ``tools`` argument of ``chat.completions.create``."""
        return [definition.to_wire() for definition in self.definitions()]


def core_tools() -> list[Tool[Any]]:
    """The file and shell tools of SPEC 5, in the stable order the model is offered them."""
    return [
        ReadTool(),
        ListTool(),
        GlobTool(),
        GrepTool(),
        WriteTool(),
        EditTool(),
        PatchTool(),
        BashTool(),
        TodoReadTool(),
        TodoWriteTool(),
    ]
