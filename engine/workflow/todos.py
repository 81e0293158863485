"""The session's todo list (SPEC 5, 9): what the model plans to do for a request and how far it got.

The model replaces the whole list with ``todowrite`` (as in Claude Code and OpenCode: no partial updates to get
wrong). A list is valid when ids are unique, every item has content, and **at most one item is in progress**:
"in progress" is what the todo pane shows as being worked on now, and a model that marks several at once has lost
track; the error tells it so and it writes the list again. Items are ``engine.events.TodoItem``, so the list goes
into ``TodosChanged`` as it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

from engine.events import TodoItem

TodoStatus = Literal["pending", "in_progress", "completed", "cancelled"]
STATUSES: tuple[str, ...] = get_args(TodoStatus)
UNFINISHED: frozenset[str] = frozenset({"pending", "in_progress"})
MAX_TODOS = 50
MAX_CONTENT_CHARS = 500

_MARKS = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]", "cancelled": "[-]"}


class TodoError(ValueError):
    """A todo list the model wrote is not valid; the message names the offending item."""


class TodoSpec(BaseModel):
    """One todo item as the model writes it."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=64, description="A short unique id, e.g. \"1\", \"2\"...")
    content: str = Field(min_length=1, max_length=MAX_CONTENT_CHARS, description="What to do, in one line.")
    status: TodoStatus = Field(
        default="pending", description="pending, in_progress (at most one item at a time), completed or cancelled."
    )

    @field_validator("id", mode="before")
    @classmethod
    def _id_as_text(cls, value: Any) -> Any:
        # Models often number items with integers; "1" and 1 are the same id.
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return value.strip() if isinstance(value, str) else value

    @field_validator("content", mode="before")
    @classmethod
    def _content_stripped(cls, value: Any) -> Any:
        return " ".join(value.split()) if isinstance(value, str) else value

    def to_item(self) -> TodoItem:
        return TodoItem(id=self.id, content=self.content, status=self.status)


def validate_todos(items: Sequence[TodoItem]) -> tuple[TodoItem, ...]:
    """The rules that concern the list as a whole; raises ``TodoError`` naming the item at fault."""
    if len(items) > MAX_TODOS:
        raise TodoError(f"a todo list holds at most {MAX_TODOS} items, got {len(items)}; group smaller steps")
    seen: set[str] = set()
    in_progress: list[str] = []
    for position, item in enumerate(items, 1):
        if not item.id.strip():
            raise TodoError(f"todo {position} has an empty id")
        if not item.content.strip():
            raise TodoError(f"todo {item.id!r} has no content")
        if item.status not in STATUSES:
            raise TodoError(f"todo {item.id!r} has status {item.status!r}; use one of {', '.join(STATUSES)}")
        if item.id in seen:
            raise TodoError(f"todo id {item.id!r} is used twice; ids must be unique")
        seen.add(item.id)
        if item.status == "in_progress":
            in_progress.append(item.id)
    if len(in_progress) > 1:
        ids = ", ".join(repr(i) for i in in_progress)
        raise TodoError(f"only one todo may be in_progress at a time, got {len(in_progress)} ({ids})")
    return tuple(items)


class TodoList:
    """One session's list. Held in ``ToolContext.todos``; the todo tools read and replace it."""

    def __init__(self, items: Iterable[TodoItem] = ()) -> None:
        self._items: tuple[TodoItem, ...] = validate_todos(list(items))

    @property
    def items(self) -> tuple[TodoItem, ...]:
        return self._items

    def replace(self, items: Sequence[TodoItem]) -> None:
        """Sets the whole list; a ``TodoError`` leaves the old one in place."""
        self._items = validate_todos(items)

    def clear(self) -> None:
        self._items = ()

    def unfinished(self) -> tuple[TodoItem, ...]:
        return tuple(item for item in self._items if item.status in UNFINISHED)

    @property
    def has_unfinished(self) -> bool:
        return any(item.status in UNFINISHED for item in self._items)

    def summary(self) -> str:
        """"3 of 5 done, 1 in progress" (cancelled items count as done: nothing is left to do on them)."""
        if not self._items:
            return "no todos"
        done = sum(item.status not in UNFINISHED for item in self._items)
        working = sum(item.status == "in_progress" for item in self._items)
        text = f"{done} of {len(self._items)} done"
        return text + (f", {working} in progress" if working else "")

    def describe(self) -> str:
        """The list as plain text, one item a line, for ``/todos`` and for the model."""
        if not self._items:
            return "no todos"
        lines = [f"{_MARKS[item.status]} {item.id}. {item.content}" for item in self._items]
        return "\n".join([*lines, self.summary()])

    def to_records(self) -> list[dict[str, str]]:
        """The list as JSON-ready dicts, as the todo tools return it to the model."""
        return [{"id": item.id, "content": item.content, "status": item.status} for item in self._items]
