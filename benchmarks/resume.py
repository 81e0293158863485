"""Resume time of a long session: ``coder-tui --resume ID`` on a 5,000-message session, in a real pseudo-terminal.

The session is written through the engine's ``Store`` into a temporary workspace (exchanges of a question, a
``read`` tool call, its result and an answer). The clock runs from launch until the prompt has drawn keys typed
ahead AND the session's last message is on screen. Median of several runs, printed beside a plain start-up in the
same workspace for scale (the issue sets no target). No asserts: it measures.

    python benchmarks/resume.py [--runs 5] [--messages 5000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.pty_clock import TYPED_MARKER, python_argv, time_until_shown  # noqa: E402

LAST_ANSWER = "RESUMEDLASTANSWER"


def write_session(workspace: Path, messages: int, last_answer: str = LAST_ANSWER) -> str:
    """Stores a session of ``messages`` messages (whole exchanges of four) ending with ``last_answer``; returns its
    id."""
    from engine.messages import FunctionCall, Message, ToolCall
    from engine.storage.store import Store

    store = Store.open(workspace)
    try:
        session_id = store.create_session(model="scripted-model", mode="default")
        exchanges = max(messages // 4, 1)
        for index in range(exchanges):
            call = ToolCall(id=f"call_{index}", function=FunctionCall(
                name="read", arguments=json.dumps({"path": f"src/module_{index}.py"})))
            answer = last_answer if index == exchanges - 1 else (
                f"Step {index} **validates** the input, then `returns` it; see `module_{index}.py`.")
            for message in (
                Message.user(f"question {index}: how does step {index} work?"),
                Message.assistant(None, tool_calls=[call]),
                Message.tool(call.id, "read", json.dumps({"ok": True, "content": f"def step_{index}(): ...\n"})),
                Message.assistant(answer),
            ):
                store.append_message(session_id, message)
    finally:
        store.close()
    return session_id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--messages", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder)
        session_id = write_session(workspace, args.messages)
        plain = python_argv("-m", "coder_tui", "--cwd", str(workspace))
        resume = [*plain, "--resume", session_id]
        for name, argv, markers in (
            ("start-up, no resume (for scale)", plain, [TYPED_MARKER]),
            (f"--resume, {args.messages:,}-message session", resume, [TYPED_MARKER, LAST_ANSWER.encode()]),
        ):
            time_until_shown(argv, cwd=workspace, markers=markers)  # warm the file cache and .pyc files
            runs = [time_until_shown(argv, cwd=workspace, markers=markers) for _ in range(args.runs)]
            print(f"{name:<40} median {statistics.median(runs):.3f} s  "
                  f"(min {min(runs):.3f}, max {max(runs):.3f}, {args.runs} runs)")


if __name__ == "__main__":
    main()
