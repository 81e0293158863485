"""A stored session to resume, written through the engine's ``Store``."""

from __future__ import annotations

from pathlib import Path

from engine.messages import Message
from engine.storage.log.records import TaskEvent
from engine.storage.store import Store


def stored_session(workspace: Path, *texts: str, with_turn: bool = True) -> str:
    """A session of ``texts``, user and assistant in turn; ``with_turn``: with a task, as a request to the model makes."""
    store = Store.open(workspace, environ={})
    try:
        session_id = store.sessions.create(model="scripted-model", mode="default")
        for number, text in enumerate(texts):
            make = Message.user if number % 2 == 0 else Message.assistant
            store.conversation.append(session_id, make(text))
        if with_turn:  # --continue picks a session in which the model was asked something
            store.events.record(session_id, TaskEvent("TaskCreated", f"t-{session_id}", texts[0]))
    finally:
        store.close()
    return session_id
