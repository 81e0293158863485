"""A server's tool and prompt lists: every page of them, and which tools this client can call."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

MAX_PAGES = 100


def needs_task(tool: Any) -> bool:
    """A tool that may only be called as a task (``execution.taskSupport: "required"``): this client calls tools
    directly, so such a tool would only fail; it is not offered."""
    execution = getattr(tool, "execution", None)
    return getattr(execution, "task_support", None) == "required"


async def all_pages(fetch: Callable[..., Awaitable[Any]], field: str) -> list[Any]:
    """Every item of a paginated list (``tools/list``, ``prompts/list``); a server that pages forever is cut off."""
    items: list[Any] = []
    cursor = None
    for _ in range(MAX_PAGES):
        page = await fetch(cursor=cursor)
        items.extend(getattr(page, field))
        cursor = page.next_cursor
        if not cursor:
            break
    return items
