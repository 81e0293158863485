"""Token counting cost on a long session (issue 6): one new message on a 5,000-message history.

Prints the time of ``TokenCounter.total`` after appending one message (what every step of a turn pays), next to a
full count of the same history by a fresh counter (what counting everything each step would cost). The first
should stay flat in the history's length: it encodes only the new message.

Run: python benchmarks/tokens.py [--messages 5000] [--model gpt-4o]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.context.tokens import TokenCounter  # noqa: E402
from engine.messages import FunctionCall, Message, ToolCall  # noqa: E402

ROUNDS = 200


def session(length: int) -> list[Message]:
    """A plausible coding session: requests, answers with tool calls, tool results of a few hundred characters."""
    messages: list[Message] = []
    i = 0
    while len(messages) < length:
        kind = i % 4
        if kind == 0:
            messages.append(Message.user(f"Please look at module_{i}.py and fix the failing test number {i}."))
        elif kind == 1:
            arguments = json.dumps({"path": f"src/module_{i}.py"})
            call = ToolCall(id=f"call_{i}", function=FunctionCall(name="read", arguments=arguments))
            messages.append(Message.assistant("Reading the module.", [call]))
        elif kind == 2:
            body = "\n".join(f"{n:>6}\tdef function_{n}(value):  return value * {n}" for n in range(8))
            messages.append(Message.tool(f"call_{i - 1}", "read", json.dumps({"ok": True, "content": body})))
        else:
            messages.append(Message.assistant(f"The bug in module_{i}.py is an off-by-one error; fixed it."))
        i += 1
    return messages


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--model", default="gpt-4o")
    args = parser.parse_args()

    history = session(args.messages)
    counter = TokenCounter(args.model)
    started = time.perf_counter()
    counter.load()
    load_ms = (time.perf_counter() - started) * 1000

    started = time.perf_counter()
    first_total = counter.total(history)
    full_ms = (time.perf_counter() - started) * 1000

    incremental: list[float] = []
    for n in range(ROUNDS):
        history.append(Message.assistant(f"Step {n}: the tests pass now after the change to module_{n}.py."))
        started = time.perf_counter()
        counter.total(history)
        incremental.append((time.perf_counter() - started) * 1e6)

    print(f"encoding: {counter.encoding_name} (loaded in {load_ms:.0f} ms)")
    print(f"history: {args.messages} messages, {first_total} tokens")
    print(f"full count of the history (fresh counter): {full_ms:.1f} ms")
    print(
        f"incremental count after one new message: median {statistics.median(incremental):.1f} us, "
        f"max {max(incremental):.1f} us over {ROUNDS} steps"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
