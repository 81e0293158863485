"""The cost of persisting one message (issue 5): ``Store.append_message`` on a session that already holds 5,000
messages, each append its own transaction in WAL mode, as the orchestrator makes them.

Messages are typical of a coding session: short user requests, assistant answers with a tool call, tool results
of a few KiB. Also prints the cost of loading the whole session (what a resume reads).

Run: python benchmarks/store_append.py [--messages 5000] [--appends 500]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.messages import FunctionCall, Message, ToolCall  # noqa: E402
from engine.storage.store import Store  # noqa: E402


def sample_message(index: int) -> Message:
    kind = index % 3
    if kind == 0:
        return Message.user(f"request {index}: please refactor the parser and add tests " * 3)
    if kind == 1:
        arguments = json.dumps({"path": f"src/module_{index}.py"})
        call = ToolCall(id=f"call_{index}", function=FunctionCall(name="read", arguments=arguments))
        return Message.assistant(f"Let me look at module {index}.", [call])
    return Message.tool(f"call_{index - 1}", "read", json.dumps({"ok": True, "content": "x = 1\n" * 600}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=5000, help="messages already in the session")
    parser.add_argument("--appends", type=int, default=500, help="appends to time")
    parser.add_argument("--dir", default=None, help="where to make the workspace (default: the system temp folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        workspace = Path(folder)
        store = Store.open(workspace)
        session_id = store.sessions.create(model="bench", mode="default")
        started = time.perf_counter()
        for index in range(args.messages):
            store.conversation.append(session_id, sample_message(index))
        fill_s = time.perf_counter() - started

        timings_ms: list[float] = []
        for index in range(args.messages, args.messages + args.appends):
            message = sample_message(index)
            started = time.perf_counter()
            store.conversation.append(session_id, message)
            timings_ms.append((time.perf_counter() - started) * 1000)

        started = time.perf_counter()
        loaded = store.conversation.load(session_id)
        load_ms = (time.perf_counter() - started) * 1000
        size_mb = sum(p.stat().st_size for p in (workspace / ".coder").glob("coder.db*")) / 1e6
        store.close()

    timings_ms.sort()
    print(f"session of {args.messages} messages filled in {fill_s:.2f}s; database {size_mb:.1f} MB")
    print(
        f"append_message over {args.appends} appends: median {statistics.median(timings_ms):.3f} ms, "
        f"p95 {timings_ms[int(len(timings_ms) * 0.95)]:.3f} ms, max {timings_ms[-1]:.3f} ms"
    )
    print(f"load_session of {len(loaded.messages)} messages: {load_ms:.1f} ms")


if __name__ == "__main__":
    main()
