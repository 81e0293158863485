"""SPEC 18 headless: a Codex model (served on the Responses API only) runs a whole turn with tool calls through the
real ``coder-tui -p``, with nothing configured but the model's name; its usage events carry the cached tokens."""

from __future__ import annotations

import json
from pathlib import Path

from tests.headless.test_headless_cli import run_cli
from tests.support.scenario import reasoning, reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


def test_a_codex_model_edits_a_file_headless(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    (tmp_path / "greet.py").write_text("def greet():\n    return 'hello'\n")
    scripted_server.add(
        reply(reasoning("Read it, then edit."), tool_call("read", id="c1", path="greet.py"), usage=(3000, 40),
              cached=2048),
        reply(tool_call("edit", id="c2", path="greet.py", old_string="'hello'", new_string="'HELLO'"),
              usage=(3100, 30), cached=2944),
        reply(text("greet() now shouts."), usage=(3200, 8), cached=3072),
    )
    done = run_cli(["-p", "make greet shout", "--mode", "yolo", "--model", "gpt-5.1-codex", "--output-format",
                    "json"], tmp_path, scripted_server)

    assert done.returncode == 0, done.stderr
    assert (tmp_path / "greet.py").read_text() == "def greet():\n    return 'HELLO'\n"
    chats = [request for request in scripted_server.requests if request.method == "POST"]
    assert [request.path for request in chats] == ["/v1/responses"] * 3
    last = chats[-1].body["input"]
    assert [item["call_id"] for item in last if item["type"] == "function_call_output"] == ["c1", "c2"]
    assert [item["encrypted_content"] for item in last if item["type"] == "reasoning"] == ["enc:Read it, then edit."]
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    usage = [(line["prompt_tokens"], line["cached_tokens"]) for line in lines
             if line["type"] == "UsageUpdated" and line["prompt_tokens"]]
    assert usage == [(3000, 2048), (3100, 2944), (3200, 3072)]
    assert lines[-1]["type"] == "result" and lines[-1]["text"] == "greet() now shouts."
