"""Session search (SPEC 27): a search over 2,000 sessions / 200,000 messages answers in under 50 ms.

The sessions are written through ``Store`` (so the index is filled by the same triggers as in use), with a
vocabulary where some words are in nearly every session and some in a few. Each query is what the ``/resume``
picker runs for what the user typed (``search_sessions``: the 50 most recent matching sessions, each with its
snippet), timed several times; the median and the worst are printed next to the target.

Run: python benchmarks/session_search.py [--sessions 2000] [--messages 100]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.messages import FunctionCall, Message, ToolCall  # noqa: E402
from engine.storage.session_search import search_sessions  # noqa: E402
from engine.storage.store import Store  # noqa: E402

TARGET_MS = 50.0
COMMON = ["the", "file", "test", "function", "error", "change", "module", "parser", "config", "run"]
RARE = [f"topic{n}" for n in range(500)]
QUERIES = ["parser", "the file", "topic7", "topic123 error", "modu", "nothing-matches-this", "test function config"]


def session_messages(rng: random.Random, count: int) -> list[Message]:
    topic = rng.choice(RARE)
    messages: list[Message] = []
    for index in range(count):
        words = " ".join(rng.choice(COMMON) for _ in range(20))
        kind = index % 3
        if kind == 0:
            messages.append(Message.user(f"{topic}: {words}"))
        elif kind == 1:
            arguments = json.dumps({"path": f"src/{rng.choice(COMMON)}_{index}.py"})
            call = ToolCall(id=f"c{index}", function=FunctionCall(name="read", arguments=arguments))
            messages.append(Message.assistant(words, [call]))
        else:
            messages.append(Message.tool(f"c{index - 1}", "read", f"{words}\n" * 20))
    return messages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--messages", type=int, default=100, help="messages per session")
    parser.add_argument("--repeat", type=int, default=20, help="times each query runs")
    parser.add_argument("--dir", default=None, help="where to make the workspace (default: the system temp folder)")
    args = parser.parse_args()
    rng = random.Random(44)
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        workspace = Path(folder)
        store = Store.open(workspace, environ={"XDG_CONFIG_HOME": str(workspace / "config")})
        started = time.perf_counter()
        for _ in range(args.sessions):
            session_id = store.sessions.create(model="bench", mode="default")
            store.conversation.append_many(session_id, session_messages(rng, args.messages))
        fill_s = time.perf_counter() - started
        store.close()
        index_mb = (workspace / ".coder" / "search.db").stat().st_size / 1e6
        print(
            f"{args.sessions:,} sessions, {args.sessions * args.messages:,} messages written in {fill_s:.1f} s "
            f"(index {index_mb:.0f} MB)"
        )
        worst = 0.0
        for query in QUERIES:
            timings: list[float] = []
            for _ in range(args.repeat):
                began = time.perf_counter()
                hits = search_sessions(workspace, query)
                timings.append((time.perf_counter() - began) * 1000)
            worst = max(worst, max(timings))
            print(
                f"  {query!r:26} {len(hits):3} sessions  median {statistics.median(timings):6.1f} ms  "
                f"max {max(timings):6.1f} ms"
            )
        verdict = "met" if worst < TARGET_MS else "NOT met"
        print(f"slowest query {worst:.1f} ms; target {TARGET_MS:.0f} ms: {verdict}")


if __name__ == "__main__":
    main()
