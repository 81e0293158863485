"""SPEC 18: `coder-tui --check-server` and /doctor ask the configured server what it is, whether it streams, how it
sends tool calls and its context window, and print a short verdict with no secret in it. The scripted server
answers as each local server does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from engine.settings_results import ServerChecked
from tests.engine.provider.test_server_probe import play
from tests.support.fakes import make_orchestrator
from tests.support.scenario import raw_body, reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

REPO = Path(__file__).resolve().parents[3]


async def doctor(tmp_path: Path, server: ScriptedServer, model: str, **config: object) -> ServerChecked:
    orchestrator, log, _ = make_orchestrator(tmp_path, server.base_url, model=model, **config)
    await orchestrator.run_input("/doctor")
    return log.of(ServerChecked)[-1]


async def test_ollama_with_native_tool_calls(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    recorded = play(scripted_server, "ollama")
    scripted_server.models = (recorded["model"],)
    scripted_server.add(reply(tool_call("read_file", path="README.md")))

    result = await doctor(tmp_path, scripted_server, recorded["model"])

    assert result.ok and result.server == "ollama" and result.tool_calls == "native"
    assert result.streams is True and result.context_window == 8192
    assert "Ollama 0.12.6" in result.text and "qwen3:8b (offered by the server)" in result.text
    assert "8,192 tokens, from Ollama /api/show (num_ctx)" in result.text
    assert "works with coder-tui" in result.text and "small context" in result.text
    request = scripted_server.requests[-1].body
    assert request["stream"] is True and request["tools"][0]["function"]["name"] == "read_file"


async def test_llama_cpp_with_tool_calls_as_text(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    recorded = play(scripted_server, "llama_cpp")
    scripted_server.add(text('<tool_call>\n{"name": "read_file", "arguments": {"path": "README.md"}}\n</tool_call>'))

    result = await doctor(tmp_path, scripted_server, recorded["model"])

    assert result.server == "llama.cpp" and result.tool_calls == "text"
    assert "written as text (Hermes/Qwen <tool_call>), read as calls automatically" in result.text
    assert "16,384 tokens, from llama.cpp /props (n_ctx)" in result.text


async def test_qwen3_coder_format_is_named(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    recorded = play(scripted_server, "vllm")
    scripted_server.add(text("<tool_call>\n<function=read_file>\n<parameter=path>\nREADME.md\n</parameter>\n"
                             "</function>\n</tool_call>"))
    result = await doctor(tmp_path, scripted_server, recorded["model"])
    assert result.server == "vllm" and "Hermes/Qwen <tool_call> with <function=...>" in result.text


async def test_a_server_that_does_not_stream(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    recorded = play(scripted_server, "lm_studio")
    completion = {"id": "c1", "object": "chat.completion", "created": 0, "model": recorded["model"], "choices": [
        {"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"README.md\"}"}}
        ]}, "finish_reason": "tool_calls"}]}
    scripted_server.add(raw_body(200, completion))

    result = await doctor(tmp_path, scripted_server, recorded["model"])

    assert result.streams is False and result.tool_calls == "native"
    assert "no: the server sent the whole answer at once" in result.text and "LM Studio" in result.text


async def test_a_model_that_makes_no_call(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    play(scripted_server, "openai_compatible")
    scripted_server.add(text("I cannot read files, but README files usually describe the project."))

    result = await doctor(tmp_path, scripted_server, "scripted-model")

    assert result.tool_calls == "none" and result.server is None
    assert "made no tool call" in result.text and "not reported by the server" in result.text


def test_check_server_cli_prints_the_report_without_secrets(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    recorded = play(scripted_server, "ollama")
    scripted_server.models = (recorded["model"],)
    scripted_server.add(reply(tool_call("read_file", path="README.md")))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CODER_"))}
    env.update(PYTHONPATH=str(REPO), XDG_CONFIG_HOME=str(tmp_path / ".xdg"), HOME=str(tmp_path),
               OPENAI_BASE_URL=scripted_server.base_url, OPENAI_API_KEY="sk-very-secret-key", CODER_MODEL=recorded["model"])

    done = subprocess.run([sys.executable, "-m", "coder_tui", "--cwd", str(tmp_path), "--check-server"],
                          capture_output=True, text=True, env=env, timeout=60, stdin=subprocess.DEVNULL)

    assert done.returncode == 0, done.stderr
    assert "Ollama 0.12.6" in done.stdout and "tool calls" in done.stdout and "verdict" in done.stdout
    everything = done.stdout + done.stderr
    assert "sk-very-secret-key" not in everything
    chat = [r for r in scripted_server.requests if r.path.endswith("/chat/completions")]
    assert chat and chat[0].headers["authorization"] == "Bearer sk-very-secret-key"
    assert chat[0].body["tools"][0]["function"]["name"] == "read_file"


def test_the_reported_url_has_no_credentials() -> None:
    from engine.provider.server_check import _without_secrets

    assert _without_secrets("https://user:pa55@gw.example.com:8443/v1?api-key=sk-1") == "https://gw.example.com:8443/v1"
