"""The session's todo list: live in its pane, and as a snapshot in the transcript whenever it changes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Static

if TYPE_CHECKING:
    from engine.events import TodoItem

_LOOKS = {
    "pending": ("☐", ""),
    "in_progress": ("◐", "bold $text-accent"),
    "completed": ("☑", "$text-success strike"),
    "cancelled": ("☒", "$text-muted strike"),
}


def todos_content(todos: Sequence[TodoItem]) -> Content:
    if not todos:
        return Content.styled("No todos yet.", "$text-muted italic")
    lines = []
    for todo in todos:
        glyph, style = _LOOKS.get(todo.status, ("☐", ""))
        lines.append(Content.assemble((f"{glyph} ", style.replace(" strike", "")), (todo.content, style)))
    return Content("\n").join(lines)


def todos_checklist(records: Sequence[object], summary: str) -> Content:
    """``/todos``'s list (the records: id, content, status) with the pane's marks, then ``summary``."""
    from engine.events import TodoItem

    items = [
        TodoItem(id=str(r.get("id", "")), content=str(r.get("content", "")), status=str(r.get("status", "pending")))
        for r in records
        if isinstance(r, dict)
    ]
    return Content("\n").join([todos_content(items), Content.styled(summary, "$text-muted")])


def todos_title(todos: Sequence[TodoItem]) -> str:
    done = sum(1 for todo in todos if todo.status == "completed")
    return f"Todos {done}/{len(todos)}" if todos else "Todos"


class TodoList(Static):
    """A todo list; ``set_todos`` replaces it (the engine always sends the whole list)."""

    DEFAULT_CSS = """
    TodoList {
        height: auto;
        padding: 0 1;
    }
    """

    def __init__(self, todos: Sequence[TodoItem] = (), *, id: str | None = None, classes: str = "") -> None:
        super().__init__(todos_content(todos), id=id, classes=classes)
        self.todos: tuple[TodoItem, ...] = tuple(todos)
        self.border_title = todos_title(self.todos)

    def set_todos(self, todos: Sequence[TodoItem]) -> None:
        self.todos = tuple(todos)
        self.border_title = todos_title(self.todos)
        self.update(todos_content(self.todos))
