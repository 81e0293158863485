"""SPEC 17 tool_call_format "xml": tools described in the system prompt, <tool_use> blocks parsed from streamed
text (split anywhere) into the same tool calls, results fed back as <tool_result> blocks; the session stays in
OpenAI form."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from itertools import count
from pathlib import Path

import pytest

from engine.messages import FunctionCall, Message, ToolCall, ToolDef, Usage
from engine.modes import Mode
from engine.provider.assembler import StreamAssembler
from engine.provider.base import (
    ChatRequest,
    FinishChunk,
    ReasoningChunk,
    StreamChunk,
    TextChunk,
    ToolCallChunk,
    UsageChunk,
)
from engine.provider.openai_provider import OpenAIProvider
from engine.provider.xml_tools import (
    XmlToolCallingProvider,
    XmlToolCallParser,
    render_tools_for_prompt,
    to_xml_wire,
    with_tools_prompt,
)
from tests.support.fakes import close_orchestrators  # noqa: F401 (autouse fixture)
from tests.support.fakes import CREATED, make_orchestrator
from tests.support.scenario import reply, text
from tests.support.scripted_server import ScriptedServer

READ = ToolDef(
    name="read",
    description="Read a file.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
TODOREAD = ToolDef(name="todoread", description="The todo list.")




def ids() -> Callable[[], str]:
    numbers = count(1)
    return lambda: f"call_{next(numbers)}"


def parse(chunks: list[str]) -> list[TextChunk | ToolCallChunk]:
    parser = XmlToolCallParser(ids())
    out: list[TextChunk | ToolCallChunk] = []
    for chunk in chunks:
        out += parser.feed(chunk)
    return out + parser.finish()


def shown(out: list[TextChunk | ToolCallChunk]) -> str:
    return "".join(c.text for c in out if isinstance(c, TextChunk))


def calls(out: list[TextChunk | ToolCallChunk]) -> list[tuple[int, str | None, str | None, str]]:
    return [(c.index, c.id, c.name, c.arguments) for c in out if isinstance(c, ToolCallChunk)]


def split_every(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


# -- the prompt ------------------------------------------------------------------------------------------------------


def test_tools_prompt_gives_the_exact_format_and_each_schema() -> None:
    prompt = render_tools_for_prompt([READ, TODOREAD])
    assert '<tool_use name="TOOL_NAME">{"argument": "value"}</tool_use>' in prompt
    assert '<tool_result name="TOOL_NAME" id="CALL_ID">' in prompt
    assert "### read\nRead a file.\nParameters (JSON schema): " + json.dumps(READ.parameters) in prompt
    assert "### todoread\nThe todo list." in prompt


def test_tools_prompt_is_appended_to_the_system_message() -> None:
    messages = [{"role": "system", "content": "You are coder."}, {"role": "user", "content": "hi"}]
    assert with_tools_prompt(messages, "# Tools") == [
        {"role": "system", "content": "You are coder.\n\n# Tools"},
        {"role": "user", "content": "hi"},
    ]
    assert messages[0]["content"] == "You are coder."  # the caller's list is left alone
    assert with_tools_prompt([{"role": "user", "content": "hi"}], "# Tools")[0] == {"role": "system",
                                                                                    "content": "# Tools"}


# -- the streaming parser --------------------------------------------------------------------------------------------

STREAM = (
    "Let me read it, then write the doc.\n\n"
    '<tool_use name="read">{"path": "a.py"}</tool_use>\n'
    '<tool_use name="write">{"path": "doc.md", "content": "End a call with </tool_use>."}</tool_use>'
)


@pytest.mark.parametrize("size", range(1, len(STREAM) + 1, 3))
def test_tool_use_blocks_split_anywhere_become_the_same_calls(size: int) -> None:
    out = parse(split_every(STREAM, size))
    assert shown(out) == "Let me read it, then write the doc."
    assert calls(out) == [
        (0, "call_1", "read", '{"path": "a.py"}'),
        # A closing tag inside a JSON string is part of the argument, not the end of the block.
        (1, "call_2", "write", '{"path": "doc.md", "content": "End a call with </tool_use>."}'),
    ]


def test_text_outside_blocks_streams_through_at_once() -> None:
    parser = XmlToolCallParser(ids())
    assert parser.feed("Hello") == [TextChunk("Hello")]
    assert parser.feed(", world. <to") == [TextChunk(", world.")]  # the space and "<to" wait
    assert parser.feed("day> is not a tag") == [TextChunk(" <today> is not a tag")]
    assert parser.feed(" <tool_user>") == [TextChunk(" <tool_user>")]
    assert parser.finish() == []


def test_text_after_a_call_is_a_new_paragraph() -> None:
    out = parse(['Reading.<tool_use name="read">{"path": "a"}</tool_use>\n\n', "  Then I will edit.\n"])
    assert shown(out) == "Reading.\n\nThen I will edit."
    assert [type(c).__name__ for c in out] == ["TextChunk", "ToolCallChunk", "TextChunk"]


@pytest.mark.parametrize(
    ("block", "name", "arguments"),
    [
        ("<tool_use name='read'>{\"path\": \"a\"}</tool_use>", "read", '{"path": "a"}'),
        ('<tool_use  name = "read" >\n  {"path": "a"}\n</tool_use>', "read", '{"path": "a"}'),
        ('<tool_use name="read">```json\n{"path": "a"}\n```</tool_use>', "read", '{"path": "a"}'),
        ('<tool_use name="todoread"></tool_use>', "todoread", "{}"),
        ('<tool_use name="todoread"/>', "todoread", "{}"),
        ('<tool_use>{"name": "read", "arguments": {"path": "a"}}</tool_use>', "read", '{"path": "a"}'),
        ('<tool_use>{"name": "read", "parameters": {"path": "a"}}</tool_use>', "read", '{"path": "a"}'),
        # Not JSON: still a call, so the tool chain tells the model what is wrong with its arguments.
        ('<tool_use name="read">path: a</tool_use>', "read", "path: a"),
    ],
)
def test_tool_use_variants_models_write(block: str, name: str, arguments: str) -> None:
    out = parse(split_every(block, 2))
    assert calls(out) == [(0, "call_1", name, arguments)]
    assert shown(out) == ""


def test_block_cut_by_a_stop_sequence_still_counts_when_its_json_is_complete() -> None:
    out = parse(['Reading. <tool_use name="read">{"path": "a.py"}'])
    assert calls(out) == [(0, "call_1", "read", '{"path": "a.py"}')]
    assert shown(out) == "Reading."


@pytest.mark.parametrize(
    "text",
    [
        'Oops <tool_use name="read">{"path": ',  # the stream ended mid-block
        "Use <tool_use> blocks to call tools.",  # the tag mentioned in prose
        '<tool_use>{"no": "name"}</tool_use>',  # a block that names no tool
        "I will <tool",  # a partial tag at the very end
    ],
)
def test_text_that_is_not_a_complete_call_comes_back_as_text(text: str) -> None:
    out = parse(split_every(text, 3))
    assert calls(out) == []
    assert shown(out) == text.strip()


# -- the history sent to the model -----------------------------------------------------------------------------------


def test_to_xml_wire_turns_tool_calls_and_results_into_text() -> None:
    history = [
        Message.system("You are coder."),
        Message.user("fix a.py"),
        Message.assistant(
            "Reading.",
            [
                ToolCall(id="call_1", function=FunctionCall(name="read", arguments='{"path": "a.py"}')),
                ToolCall(id="call_2", function=FunctionCall(name="grep", arguments='{"pattern": "x"}')),
            ],
        ),
        Message.tool("call_1", "read", '{"ok": true, "content": "x = 1"}'),
        Message.tool("call_2", "grep", '{"ok": true, "matches": []}'),
        Message.assistant(None, [ToolCall(id="call_3", function=FunctionCall(name="todoread", arguments=""))]),
        Message.tool("call_3", "todoread", '{"ok": true}'),
        Message.user("also b.py"),
        Message.assistant("Done."),
    ]
    wire = [message.to_wire() for message in history]
    original = json.loads(json.dumps(wire))
    assert to_xml_wire(wire) == [
        {"role": "system", "content": "You are coder."},
        {"role": "user", "content": "fix a.py"},
        {
            "role": "assistant",
            "content": 'Reading.\n\n<tool_use name="read">{"path": "a.py"}</tool_use>\n\n'
            '<tool_use name="grep">{"pattern": "x"}</tool_use>',
        },
        {
            "role": "user",
            "content": '<tool_result name="read" id="call_1">\n{"ok": true, "content": "x = 1"}\n</tool_result>\n\n'
            '<tool_result name="grep" id="call_2">\n{"ok": true, "matches": []}\n</tool_result>',
        },
        {"role": "assistant", "content": '<tool_use name="todoread">{}</tool_use>'},
        {
            "role": "user",
            "content": '<tool_result name="todoread" id="call_3">\n{"ok": true}\n</tool_result>\n\nalso b.py',
        },
        {"role": "assistant", "content": "Done."},
    ]
    assert wire == original  # the session's own wire dicts are never changed


def test_tool_result_without_a_name_takes_it_from_its_call() -> None:
    wire = [
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "{}"},
    ]
    assert to_xml_wire(wire)[1]["content"].startswith('<tool_result name="read" id="c1">')


# -- the provider wrapper --------------------------------------------------------------------------------------------


class FakeProvider:
    """Streams scripted chunks and records the requests it was given."""

    def __init__(self, chunks: list[StreamChunk]) -> None:
        self.chunks = chunks
        self.requests: list[ChatRequest] = []
        self.closed = False

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamChunk]:
        self.requests.append(request)
        for chunk in self.chunks:
            yield chunk

    async def aclose(self) -> None:
        self.closed = True


async def test_xml_provider_sends_no_tools_and_describes_them_in_the_system_prompt() -> None:
    inner = FakeProvider([TextChunk("hi"), FinishChunk("stop")])
    provider = XmlToolCallingProvider(inner, ids())
    request = ChatRequest(
        model="m",
        messages=[Message.system("You are coder.").to_wire(), Message.user("hi").to_wire()],
        tools=[READ.to_wire(), TODOREAD.to_wire()],
    )
    chunks = [chunk async for chunk in provider.stream(request)]
    assert chunks == [TextChunk("hi"), FinishChunk("stop")]
    (sent,) = inner.requests
    assert sent.tools == [] and sent.model == "m"
    assert sent.messages[0]["content"] == "You are coder.\n\n" + render_tools_for_prompt([READ, TODOREAD])
    await provider.aclose()
    assert inner.closed


async def test_xml_provider_streams_calls_as_tool_call_chunks_the_assembler_joins() -> None:
    inner = FakeProvider(
        [
            ReasoningChunk("think"),
            TextChunk("Reading. <tool_"),
            TextChunk('use name="read">{"pa'),
            TextChunk('th": "a.py"}</tool_use>'),
            FinishChunk("stop"),
            UsageChunk(Usage(prompt_tokens=5, completion_tokens=3, total_tokens=8)),
        ]
    )
    provider = XmlToolCallingProvider(inner, ids())
    chunks = [c async for c in provider.stream(ChatRequest(model="m", messages=[], tools=[READ.to_wire()]))]
    assert chunks == [
        ReasoningChunk("think"),
        TextChunk("Reading."),
        ToolCallChunk(index=0, id="call_1", name="read", arguments='{"path": "a.py"}'),
        FinishChunk("tool_calls"),
        UsageChunk(Usage(prompt_tokens=5, completion_tokens=3, total_tokens=8)),
    ]
    assembler = StreamAssembler()
    for chunk in chunks:
        assembler.feed(chunk)
    message = assembler.message()
    assert message.content == "Reading." and message.reasoning == "think"
    assert message.tool_calls == [
        ToolCall(id="call_1", function=FunctionCall(name="read", arguments='{"path": "a.py"}'))
    ]


async def test_xml_provider_flushes_a_stream_that_ends_without_a_finish_chunk() -> None:
    provider = XmlToolCallingProvider(FakeProvider([TextChunk("I will <tool")]), ids())
    chunks = [c async for c in provider.stream(ChatRequest(model="m", messages=[], tools=[]))]
    assert chunks == [TextChunk("I will"), TextChunk(" <tool")]


async def test_xml_provider_over_the_openai_sdk_against_the_scripted_server(scripted_server: ScriptedServer) -> None:
    scripted_server.add(text('Let me look.\n<tool_use name="read">{"path": "src/app.py"}</tool_use>', chunk=3))
    provider = XmlToolCallingProvider(
        OpenAIProvider(base_url=scripted_server.base_url, api_key="sk-test", max_retries=0), ids()
    )
    history = [
        Message.system("You are coder.").to_wire(),
        Message.user("look at app").to_wire(),
        Message.assistant(None, [ToolCall(id="c0", function=FunctionCall(name="list", arguments="{}"))]).to_wire(),
        Message.tool("c0", "list", '{"ok": true, "entries": ["src/"]}').to_wire(),
    ]
    try:
        assembler = StreamAssembler()
        request = ChatRequest(model="scripted-model", messages=history, tools=[READ.to_wire()])
        async for chunk in provider.stream(request):
            assembler.feed(chunk)
    finally:
        await provider.aclose()
    message = assembler.message()
    assert message.content == "Let me look."
    assert [(c.name, c.parsed_arguments()) for c in message.tool_calls] == [("read", {"path": "src/app.py"})]
    body = scripted_server.requests[0].body
    assert "tools" not in body
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "user"]
    assert "<tool_use name=\"TOOL_NAME\">" in body["messages"][0]["content"]
    assert body["messages"][2] == {"role": "assistant", "content": '<tool_use name="list">{}</tool_use>'}
    assert body["messages"][3]["content"].startswith('<tool_result name="list" id="c0">')


async def test_xml_model_completes_a_read_edit_verify_turn(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    (tmp_path / "app.py").write_text("def add(a, b):\n    return a - b\n")
    scripted_server.add(
        text('I will read it.\n<tool_use name="read">{"path": "app.py"}</tool_use>', chunk=5),
        text('<tool_use name="edit">{"path": "app.py", "old_string": "a - b", "new_string": "a + b"}</tool_use>',
             chunk=7),
        text('<tool_use name="bash">{"command": "grep -n \\"a + b\\" app.py"}</tool_use>', chunk=4),
        reply(text("Fixed: add now adds.")),
    )
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.AUTO_EDIT, tool_call_format="xml")
    outcome = await orch.run_input("fix add in app.py")
    assert outcome.ok and outcome.text == "Fixed: add now adds."
    assert (tmp_path / "app.py").read_text() == "def add(a, b):\n    return a + b\n"
    for request in scripted_server.requests:
        assert "tools" not in request.body
        assert all(m["role"] != "tool" for m in request.body["messages"])
    last = scripted_server.requests[-1].body["messages"][-1]
    assert last["role"] == "user" and last["content"].startswith('<tool_result name="bash"')
    assert '"exit_code": 0' in last["content"]
    # The session file keeps the OpenAI form: assistant tool_calls and tool messages.
    saved = json.loads(orch.session.path.read_text())
    roles = [m["role"] for m in saved["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "tool", "assistant", "tool", "assistant"]
    assert saved["messages"][2]["tool_calls"][0]["function"] == {"name": "read", "arguments": '{"path": "app.py"}'}
