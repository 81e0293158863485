"""SPEC 5 and 9: the session's todo list and its rules."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from engine.events import TodoItem
from engine.workflow.todos import MAX_TODOS, TodoError, TodoList, TodoSpec


def item(id: str, status: str = "pending", content: str | None = None) -> TodoItem:
    return TodoItem(id=id, content=content or f"task {id}", status=status)  # type: ignore[arg-type]


def test_a_new_list_is_empty() -> None:
    todos = TodoList()
    assert todos.items == () and not todos.has_unfinished
    assert todos.describe() == "no todos" and todos.summary() == "no todos"


def test_replace_sets_the_whole_list() -> None:
    todos = TodoList([item("1"), item("2")])
    todos.replace([item("3", "in_progress")])
    assert [t.id for t in todos.items] == ["3"]


def test_ids_must_be_unique() -> None:
    todos = TodoList([item("1")])
    with pytest.raises(TodoError, match="'2' is used twice"):
        todos.replace([item("2"), item("2")])
    assert [t.id for t in todos.items] == ["1"]


def test_at_most_one_item_in_progress() -> None:
    with pytest.raises(TodoError, match=r"only one todo may be in_progress.*'a', 'b'"):
        TodoList([item("a", "in_progress"), item("b", "in_progress")])
    TodoList([item("a", "in_progress"), item("b", "completed"), item("c", "cancelled"), item("d")])


def test_items_need_content_and_a_known_status() -> None:
    with pytest.raises(TodoError, match="no content"):
        TodoList([item("1", content="  ")])
    with pytest.raises(TodoError, match="status 'done'"):
        TodoList([item("1", status="done")])
    with pytest.raises(TodoError, match="empty id"):
        TodoList([TodoItem(id=" ", content="x", status="pending")])


def test_a_list_is_capped() -> None:
    with pytest.raises(TodoError, match=f"at most {MAX_TODOS}"):
        TodoList([item(str(i)) for i in range(MAX_TODOS + 1)])


def test_unfinished_items_are_pending_or_in_progress() -> None:
    todos = TodoList([item("1", "completed"), item("2", "cancelled")])
    assert not todos.has_unfinished and todos.unfinished() == ()
    todos.replace([item("1", "completed"), item("2", "in_progress"), item("3")])
    assert todos.has_unfinished and [t.id for t in todos.unfinished()] == ["2", "3"]


def test_describe_shows_each_item_with_its_state() -> None:
    todos = TodoList(
        [item("1", "completed", "read"), item("2", "in_progress", "fix"), item("3", content="test"),
         item("4", "cancelled", "docs")]
    )
    assert todos.describe() == "[x] 1. read\n[~] 2. fix\n[ ] 3. test\n[-] 4. docs\n2 of 4 done, 1 in progress"


def test_spec_accepts_integer_ids_and_tidies_content() -> None:
    spec = TodoSpec.model_validate({"id": 1, "content": "  fix\n the   bug "})
    assert spec.to_item() == TodoItem(id="1", content="fix the bug", status="pending")
    with pytest.raises(ValidationError):
        TodoSpec.model_validate({"id": "1", "content": "x", "status": "done"})
    with pytest.raises(ValidationError):
        TodoSpec.model_validate({"id": "1", "content": ""})


def test_records_are_plain_json() -> None:
    todos = TodoList([item("1", "completed"), item("2", "in_progress")])
    assert todos.to_records() == [
        {"id": "1", "content": "task 1", "status": "completed"},
        {"id": "2", "content": "task 2", "status": "in_progress"},
    ]


def test_a_stored_list_is_validated_when_loaded() -> None:
    stored = [item("1", "in_progress"), item("1")]
    with pytest.raises(TodoError, match="used twice"):
        TodoList(stored)
