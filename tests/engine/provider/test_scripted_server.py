"""The scripted server speaks OpenAI's wire format: checked with the real ``openai`` SDK as the client."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import openai
import pytest

from tests.support.demo import demo_reply
from tests.support.scenario import (
    Reply,
    Slow,
    broken,
    error,
    raw_body,
    raw_sse,
    raw_tool_call,
    reasoning,
    reply,
    slow,
    stall,
    text,
    tool_call,
)
from tests.support.scripted_http import NO_REPLY_LEFT
from tests.support.scripted_server import ScriptedServer, load_scenario

REPO_ROOT = Path(__file__).resolve().parents[3]
USER_HI = [{"role": "user", "content": "hi"}]


def client_for(server: ScriptedServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key="test-key", max_retries=0, timeout=10)


def stream_chunks(server: ScriptedServer, **extra: object) -> list:
    stream = client_for(server).chat.completions.create(model="m", messages=USER_HI, stream=True, **extra)
    return list(stream)


def deltas(chunks: list) -> list:
    return [chunk.choices[0].delta for chunk in chunks if chunk.choices]


def test_text_streams_as_content_deltas_of_the_chunk_size(scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("hello world", chunk=5))

    chunks = stream_chunks(scripted_server)

    assert deltas(chunks)[0].role == "assistant"
    assert [d.content for d in deltas(chunks) if d.content] == ["hello", " worl", "d"]
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert all(chunk.object == "chat.completion.chunk" and chunk.model == "m" for chunk in chunks)


def test_tool_call_sends_id_and_name_only_in_its_first_delta(scripted_server: ScriptedServer) -> None:
    scripted_server.add(tool_call("bash", id="call_7", command="ls -la"))

    calls = [d.tool_calls[0] for d in deltas(stream_chunks(scripted_server)) if d.tool_calls]

    assert (calls[0].id, calls[0].function.name, calls[0].function.arguments) == ("call_7", "bash", "")
    assert len(calls) > 3, "the arguments must arrive in several pieces"
    assert all(call.id is None and call.function.name is None for call in calls[1:])
    assert json.loads("".join(call.function.arguments for call in calls)) == {"command": "ls -la"}


def test_reply_combines_text_and_indexed_tool_calls(scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("Reading."), tool_call("read", path="a.txt"), tool_call("read", path="b.txt")))

    chunks = stream_chunks(scripted_server)

    calls = [d.tool_calls[0] for d in deltas(chunks) if d.tool_calls]
    assert "".join(d.content or "" for d in deltas(chunks)) == "Reading."
    assert [call.index for call in calls if call.id] == [0, 1]
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


def test_calls_scripted_without_id_get_ids_in_serving_order(scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("read", path="a"), tool_call("list", path=".")), tool_call("read", path="b"))

    first = [d.tool_calls[0].id for d in deltas(stream_chunks(scripted_server)) if d.tool_calls and d.tool_calls[0].id]
    second = [d.tool_calls[0].id for d in deltas(stream_chunks(scripted_server)) if d.tool_calls and d.tool_calls[0].id]

    assert (first, second) == (["call_1", "call_2"], ["call_3"])


def test_tool_arguments_named_like_helper_parameters_pass_through(scripted_server: ScriptedServer) -> None:
    scripted_server.add(tool_call("skill", name="refactor"))

    calls = [d.tool_calls[0] for d in deltas(stream_chunks(scripted_server)) if d.tool_calls]

    assert calls[0].function.name == "skill"
    assert json.loads("".join(call.function.arguments for call in calls)) == {"name": "refactor"}


def test_raw_tool_call_sends_broken_json_verbatim(scripted_server: ScriptedServer) -> None:
    scripted_server.add(raw_tool_call("write", '{"path": "a.txt", "content": '))

    calls = [d.tool_calls[0] for d in deltas(stream_chunks(scripted_server)) if d.tool_calls]

    assert "".join(call.function.arguments for call in calls) == '{"path": "a.txt", "content": '


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_arrives_as_an_extra_delta_field(scripted_server: ScriptedServer, field: str) -> None:
    scripted_server.add(reply(reasoning("think first", field=field), text("answer")))

    sent = [(d.model_extra or {}).get(field) for d in deltas(stream_chunks(scripted_server))]

    assert "".join(piece for piece in sent if piece) == "think first"


def test_usage_comes_in_a_last_chunk_without_choices(scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("ok"), usage=(120, 9)))

    last = stream_chunks(scripted_server, stream_options={"include_usage": True})[-1]

    assert last.choices == []
    assert (last.usage.prompt_tokens, last.usage.completion_tokens, last.usage.total_tokens) == (120, 9, 129)


def test_non_streaming_request_gets_a_chat_completion(scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("hello"), tool_call("read", id="call_1", path="a.txt"), usage=(3, 4)))

    completion = client_for(scripted_server).chat.completions.create(model="m", messages=USER_HI)

    message = completion.choices[0].message
    assert message.content == "hello"
    assert message.tool_calls[0].id == "call_1"
    assert json.loads(message.tool_calls[0].function.arguments) == {"path": "a.txt"}
    assert completion.choices[0].finish_reason == "tool_calls"
    assert completion.usage.total_tokens == 7


def test_every_request_is_recorded_with_headers_and_body(scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("one"), text("two"))
    tools = [{"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}]
    history = [
        {"role": "user", "content": "read a"},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true}'},
    ]
    client = client_for(scripted_server)

    client.chat.completions.create(model="m", messages=USER_HI, stream=True).close()
    list(client.chat.completions.create(model="m2", messages=history, tools=tools, stream=True))

    first, second = scripted_server.requests
    assert (first.method, first.path) == ("POST", "/v1/chat/completions")
    assert first.headers["authorization"] == "Bearer test-key"
    assert second.body["model"] == "m2"
    assert second.body["tools"] == tools
    assert second.body["messages"][-1] == history[-1]


def test_models_endpoint_lists_the_model_names() -> None:
    with ScriptedServer(models=("small", "large")) as server:
        names = [model.id for model in client_for(server).models.list()]
    assert names == ["small", "large"]


def test_error_reply_has_an_openai_error_body_and_retry_after(scripted_server: ScriptedServer) -> None:
    scripted_server.add(error(429, "slow down", retry_after=0.2, retry_after_ms=200))

    with pytest.raises(openai.RateLimitError) as caught:
        stream_chunks(scripted_server)

    assert caught.value.body["message"] == "slow down"
    assert caught.value.response.headers["retry-after"] == "0.2"
    assert caught.value.response.headers["retry-after-ms"] == "200"


def test_empty_script_answers_500_saying_no_reply_is_left(scripted_server: ScriptedServer) -> None:
    with pytest.raises(openai.InternalServerError) as caught:
        stream_chunks(scripted_server)
    assert caught.value.body["message"] == NO_REPLY_LEFT


def test_fallback_answers_once_the_script_is_empty() -> None:
    seen: list[dict] = []

    def fallback(body: dict) -> Reply:
        seen.append(body)
        return reply(text(f"fallback for {body['model']}"))

    with ScriptedServer([text("scripted")], fallback=fallback) as server:
        answers = ["".join(d.content or "" for d in deltas(stream_chunks(server))) for _ in range(2)]

    assert answers == ["scripted", "fallback for m"]
    assert len(seen) == 1


def test_add_and_remaining_track_the_script(scripted_server: ScriptedServer) -> None:
    scripted_server.add(text("a"), text("b"))
    stream_chunks(scripted_server)
    assert scripted_server.remaining == 1


def test_broken_stream_sends_partial_chunks_then_drops_the_connection(scripted_server: ScriptedServer) -> None:
    scripted_server.add(broken(after=text("partial answer", chunk=7)))
    received: list[str] = []

    with pytest.raises(openai.APIConnectionError):
        for chunk in client_for(scripted_server).chat.completions.create(model="m", messages=USER_HI, stream=True):
            received += [choice.delta.content or "" for choice in chunk.choices]

    assert "".join(received) == "partial answer"


def test_stall_sends_first_chunks_and_notices_the_client_leaving(scripted_server: ScriptedServer) -> None:
    scripted_server.add(stall(after=text("thinking"), seconds=30))
    stream = client_for(scripted_server).chat.completions.create(model="m", messages=USER_HI, stream=True)

    first_text = [next(stream).choices[0].delta.content for _ in range(3)]
    stream.close()

    assert first_text == ["", "thin", "king"]
    assert scripted_server.requests[-1].client_closed.wait(timeout=5)


def test_stop_ends_a_stalled_reply() -> None:
    """The reply is really stalled (its first words arrived, then nothing) when the server stops: the client sees
    the connection end, instead of a connection error from a reply that never began."""
    server = ScriptedServer([stall(after=text("thinking"), seconds=600)]).start()
    received: list[str] = []
    first_words = threading.Event()
    outcome: list[BaseException] = []

    def consume() -> None:
        try:
            for chunk in client_for(server).chat.completions.create(model="m", messages=USER_HI, stream=True):
                received.append(chunk.choices[0].delta.content or "")
                if "".join(received) == "thinking":
                    first_words.set()
        except openai.APIError as exc:
            outcome.append(exc)

    reader = threading.Thread(target=consume, daemon=True)
    reader.start()
    assert first_words.wait(timeout=30), "the stalled reply never began"
    assert reader.is_alive() and outcome == []  # stalled, not failed
    server.stop()
    reader.join(timeout=10)

    assert not reader.is_alive()
    assert len(server.requests) == 1
    assert isinstance(outcome[0], openai.APIConnectionError)
    assert "".join(received) == "thinking"


def test_slow_reply_streams_the_same_chunks(scripted_server: ScriptedServer) -> None:
    scripted_server.add(slow(text("abcdef", chunk=2), delay=0.01))

    contents = [d.content for d in deltas(stream_chunks(scripted_server)) if d.content]

    assert contents == ["ab", "cd", "ef"]


def test_bare_parts_and_helpers_reject_nonsense() -> None:
    with pytest.raises(ValueError, match="chunk"):
        text("x", chunk=0)
    with pytest.raises(ValueError, match="field"):
        reasoning("x", field="thoughts")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="status"):
        error(200)
    with pytest.raises(TypeError, match="reply"):
        reply(error(500))  # type: ignore[arg-type]


def test_demo_echoes_the_last_user_message_as_markdown() -> None:
    answer = demo_reply({"messages": [{"role": "user", "content": "make it blue"}]})

    assert isinstance(answer, Slow)
    assert "```text\nmake it blue\n```" in answer.reply.parts[0].text


def test_demo_answers_a_tool_request_with_that_call() -> None:
    answer = demo_reply({"messages": [{"role": "user", "content": 'try !tool read {"path": "README.md"}'}]})

    (call,) = answer.reply.tool_calls
    assert (call.name, json.loads(call.arguments)) == ("read", {"path": "README.md"})


def test_demo_summarises_a_tool_result() -> None:
    body = {"messages": [{"role": "tool", "name": "read", "tool_call_id": "call_1", "content": "1: hello"}]}

    summary = demo_reply(body).reply.parts[0].text

    assert "read" in summary and "1: hello" in summary


def test_scenario_file_defines_replies_and_fallback(tmp_path: Path) -> None:
    scenario = tmp_path / "scenario.py"
    scenario.write_text(
        "from tests.support.scenario import reply, text\n"
        "REPLIES = [text('first')]\n"
        "def fallback(body):\n    return reply(text('again'))\n"
    )

    replies, fallback = load_scenario(scenario)

    assert replies == [text("first")]
    assert fallback({}) == reply(text("again"))


def test_scenario_file_without_replies_is_refused(tmp_path: Path) -> None:
    scenario = tmp_path / "empty.py"
    scenario.write_text("x = 1\n")
    with pytest.raises(SystemExit, match="REPLIES"):
        load_scenario(scenario)


@pytest.mark.parametrize(
    ("module", "in_checkout"), [("tests.support.scripted_server", True), ("coder_tui.launch.demo_server", False)]
)
def test_command_line_server_runs_the_demo_until_interrupted(module: str, in_checkout: bool, tmp_path: Path) -> None:
    """From the repository root, or as the ``coder-tui-demo-server`` script from any folder."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", module, "--port", "0"],
        cwd=REPO_ROOT if in_checkout else tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        # Ctrl+C reaches it as at a terminal, even when this run was started where SIGINT is ignored (a shell's
        # background job): Python leaves an ignored SIGINT ignored, and the server would never stop.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        banner = process.stdout.readline()
        base_url = banner.split()[3]
        client = openai.OpenAI(base_url=base_url, api_key="k", max_retries=0, timeout=10)
        messages = [{"role": "user", "content": "hello demo"}]
        answer = "".join(
            chunk.choices[0].delta.content or ""
            for chunk in client.chat.completions.create(model="m", messages=messages, stream=True)
            if chunk.choices
        )
    finally:
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=10)

    assert "hello demo" in answer
    assert process.returncode == 0, stderr
    assert "POST /v1/chat/completions" in stdout


def test_raw_sse_is_replayed_byte_for_byte(scripted_server: ScriptedServer) -> None:
    stream = ': comment\r\n\r\nevent: x\r\ndata:{"choices":[]}\r\n\r\n'
    scripted_server.add(raw_sse(stream))

    with client_for(scripted_server).chat.completions.with_streaming_response.create(
        model="m", messages=USER_HI, stream=True
    ) as response:
        body = response.http_response.read()

    assert body == stream.encode()


def test_raw_body_sends_any_status_and_content_type(scripted_server: ScriptedServer) -> None:
    scripted_server.add(raw_body(400, [{"error": {"message": "listed"}}]), raw_body(200, "<html></html>", "text/html"))
    client = client_for(scripted_server)

    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="m", messages=USER_HI)
    page = client.chat.completions.with_raw_response.create(model="m", messages=USER_HI)

    assert caught.value.body == [{"error": {"message": "listed"}}]
    assert page.http_response.headers["content-type"] == "text/html" and page.http_response.text == "<html></html>"
