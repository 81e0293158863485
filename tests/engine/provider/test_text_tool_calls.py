"""SPEC 18: tool calls a local model writes as text become real calls with no setting, in each common format;
prose that mentions JSON, a marker or a tool name stays prose; the raw call text never streams to the screen."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.events import TextDelta
from engine.provider.text_tool_calls import OfferedTools, parse_marked, parse_whole_json
from tests.support.fakes import make_orchestrator
from tests.support.scenario import text
from tests.support.scripted_server import ScriptedServer

HERE = Path(__file__).parent / "text_calls"
PROSE = [
    line.replace("\\n", "\n")
    for line in (HERE / "prose.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#")
]
TOOLS = OfferedTools(
    {"read": frozenset({"path", "offset", "limit"}), "glob": frozenset({"pattern"}), "bash": frozenset({"command"})},
    {"read": frozenset({"path"}), "glob": frozenset({"pattern"}), "bash": frozenset({"command"})},
)
READ_A = ("read", {"path": "a.py"})

# Each format as models write it, and the calls it holds.
FORMATS = {
    "hermes": ('<tool_call>\n{"name": "read", "arguments": {"path": "a.py"}}\n</tool_call>', [READ_A]),
    "hermes_two": (
        '<tool_call>\n{"name": "read", "arguments": {"path": "a.py"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "read", "arguments": {"path": "b.py"}}\n</tool_call>',
        [READ_A, ("read", {"path": "b.py"})],
    ),
    "qwen3_coder": (
        "<tool_call>\n<function=read>\n<parameter=path>\na.py\n</parameter>\n<parameter=limit>\n5\n</parameter>\n"
        "</function>\n</tool_call>",
        [("read", {"path": "a.py", "limit": 5})],
    ),
    "qwen3_coder_bare": ("<function=read>\n<parameter=path>\na.py\n</parameter>\n</function>", [READ_A]),
    "mistral_list": ('[TOOL_CALLS][{"name": "read", "arguments": {"path": "a.py"}}]', [READ_A]),
    "mistral_args": ('[TOOL_CALLS]read[ARGS]{"path": "a.py"}', [READ_A]),
    "llama_python_tag": ('<|python_tag|>{"name": "read", "parameters": {"path": "a.py"}}<|eom_id|>', [READ_A]),
    "bare_json": ('{"name": "read", "parameters": {"path": "a.py"}}', [READ_A]),
    "fenced_json": ('```json\n{"name": "read", "arguments": {"path": "a.py"}}\n```', [READ_A]),
    "json_list": ('[{"name": "read", "arguments": {"path": "a.py"}}]', [READ_A]),
    "arguments_as_string": ('{"name": "read", "arguments": "{\\"path\\": \\"a.py\\"}"}', [READ_A]),
}


def _parse(answer: str) -> list[tuple[str, dict[str, object]]] | None:
    stripped = answer.strip()
    calls = parse_marked(stripped, TOOLS) if stripped.startswith(("<", "[TOOL_CALLS]")) else None
    calls = calls or parse_whole_json(stripped, TOOLS)
    return [(c.name, json.loads(c.arguments)) for c in calls] if calls else None


@pytest.mark.parametrize("name", FORMATS)
def test_each_format_parses(name: str) -> None:
    answer, expected = FORMATS[name]
    assert _parse(answer) == expected


@pytest.mark.parametrize(
    ("name", "before"),
    [("hermes", "Let me look.\n"), ("qwen3_coder", "Let me look.\n"), ("mistral_args", ""),
     ("llama_python_tag", ""), ("fenced_json", ""), ("bare_json", "\n")],
)
async def test_text_call_runs_as_a_tool_call(
    name: str, before: str, tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    """Through the real SDK and HTTP, with the answer cut in 3-character pieces: the tool runs, the history holds a
    real call, and no piece of the raw call text streamed to the screen."""
    answer, expected = FORMATS[name]
    (tmp_path / "a.py").write_text("print('a')\n")
    scripted_server.add(text(before + answer, chunk=3), text("It prints a."))
    orchestrator, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)

    outcome = await orchestrator.run_input("what does a.py print?")

    assert outcome.ok, outcome
    assistant = next(m for m in orchestrator.session.messages if m.role == "assistant")
    assert [(c.name, json.loads(c.function.arguments)) for c in assistant.tool_calls or []] == expected
    assert (assistant.content or "") == (before if before.strip() else "")
    shown = "".join(e.text for e in log.of(TextDelta))
    assert shown == (before if before.strip() else "") + "It prints a."
    results = [m for m in scripted_server.requests[1].body["messages"] if m["role"] == "tool"]
    assert "print('a')" in results[0]["content"]


@pytest.mark.parametrize("answer", PROSE)
def test_prose_stays_prose(answer: str) -> None:
    assert _parse(answer) is None or not answer.strip().startswith(("{", "[", "`", "<"))
    assert _parse_as_stream(answer) is None


def _parse_as_stream(answer: str) -> list[object] | None:
    """What the stream reader makes of the answer: None when no call comes out of it."""
    from engine.provider.base import FinishChunk, TextChunk, ToolCallChunk
    from engine.provider.text_tool_stream import _TextCallReader

    reader = _TextCallReader(TOOLS, lambda: "call_x")
    out = []
    for at in range(0, len(answer), 3):
        out += reader.take(TextChunk(answer[at:at + 3]))
    out += reader.take(FinishChunk("stop"))
    calls = [c for c in out if isinstance(c, ToolCallChunk)]
    assert "".join(c.text for c in out if isinstance(c, TextChunk)) == answer or calls
    return calls or None


@pytest.mark.parametrize("answer", PROSE)
async def test_prose_reaches_the_user_whole(answer: str, tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(text(answer, chunk=5))
    orchestrator, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)

    outcome = await orchestrator.run_input("go")

    assert outcome.ok, outcome
    assert "".join(e.text for e in log.of(TextDelta)) == answer
    assistant = next(m for m in orchestrator.session.messages if m.role == "assistant")
    assert assistant.content == answer and not assistant.tool_calls
