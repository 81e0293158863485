"""The process the kill test SIGKILLs: it appends messages through the Store forever, printing ``ok <seq>`` after
each ``append_message`` returns, so the test knows which appends were committed before the kill.

Run: python -m tests.engine.storage.append_worker <workspace> <seed>
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from engine.messages import FunctionCall, Message, ToolCall
from engine.storage.log.records import TaskEvent
from engine.storage.store import Store


def message_for(seed: int, seq: int) -> Message:
    """The message number ``seq`` of a run; the test rebuilds the same one to check what was stored."""
    rng = random.Random(f"{seed}:{seq}")
    body = f"{seq}:" + "".join(rng.choice("abcdefé\n\r\t\"\\{}") for _ in range(rng.choice([10, 900, 5000])))
    body += "z" * rng.choice([0, 0, 0, 70_000, 200_000])
    kind = seq % 3
    if kind == 0:
        return Message.user(body)
    if kind == 1:
        return Message.assistant(body, [ToolCall(id=f"call_{seq}", function=FunctionCall(name="read", arguments="{}"))])
    return Message.tool(f"call_{seq - 1}", "read", body)


def main() -> None:
    workspace, seed = Path(sys.argv[1]), int(sys.argv[2])
    store = Store.open(workspace)
    session_id = store.sessions.create(model="m", mode="default")
    print(f"session {session_id}", flush=True)
    seq = 0
    while True:
        if seq % 7 == 0:
            store.events.record(session_id, TaskEvent("TaskCreated", f"task_{seq}", "next request"))
        stored = store.conversation.append(session_id, message_for(seed, seq))
        print(f"ok {stored}", flush=True)
        seq += 1


if __name__ == "__main__":
    main()
