"""Issue 43 items 4 and 5, on the real command line: with only a server URL, the server's only model is used, and
with several the user is told to choose (headless: ``--model``); ``--check-server`` fails when the configured model is
not served; the context window the server reports (vLLM's ``max_model_len``) is the one in use in ``--check-server``,
``-p /status`` and every usage event of a headless turn."""

from __future__ import annotations

import json
from pathlib import Path

from tests.headless.test_headless_cli import run_cli
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer, vllm_models


def serve_vllm(server: ScriptedServer, *models: str, window: int = 65_536) -> None:
    server.answer("GET", "/v1/models", vllm_models(models, window))


def chat_requests(server: ScriptedServer) -> list[dict[str, object]]:
    return [r.body for r in server.requests if r.path.endswith("/chat/completions")]


def test_with_only_the_url_the_servers_only_model_is_used(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    serve_vllm(scripted_server, "qwen3-coder")
    scripted_server.add(text("Hi."))
    done = run_cli(["-p", "hello"], tmp_path, scripted_server)
    assert done.returncode == 0, done.stderr
    assert chat_requests(scripted_server)[0]["model"] == "qwen3-coder"
    assert "model: qwen3-coder, the one the server serves" in done.stderr


def test_with_several_models_headless_says_to_choose_with_model(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    serve_vllm(scripted_server, "qwen3-coder", "llama-3.3-70b")
    done = run_cli(["-p", "hello"], tmp_path, scripted_server)
    assert done.returncode == 1
    assert "the server lists 2 (qwen3-coder, llama-3.3-70b): choose one with --model NAME" in done.stderr
    assert chat_requests(scripted_server) == []

    scripted_server.add(text("Hi."))
    chosen = run_cli(["-p", "hello", "--model", "llama-3.3-70b"], tmp_path, scripted_server)
    assert chosen.returncode == 0, chosen.stderr
    assert chat_requests(scripted_server)[0]["model"] == "llama-3.3-70b"


def test_a_configured_model_is_never_replaced(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    serve_vllm(scripted_server, "qwen3-coder")
    (tmp_path / ".xdg" / "coder").mkdir(parents=True)
    (tmp_path / ".xdg" / "coder" / "config.json").write_text(json.dumps({"model": "my-model"}))
    scripted_server.add(text("Hi."))
    assert run_cli(["-p", "hello"], tmp_path, scripted_server).returncode == 0
    assert chat_requests(scripted_server)[0]["model"] == "my-model"


def test_check_server_fails_when_the_model_is_not_served(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    serve_vllm(scripted_server, "qwen3-coder", "llama-3.3-70b")
    scripted_server.add(reply(tool_call("read_file", path="README.md")))
    done = run_cli(["--check-server"], tmp_path, scripted_server, extra_env={"CODER_MODEL": "gpt-4o-mini"})
    assert done.returncode == 1
    assert "gpt-4o-mini (NOT among the 2 models the server lists" in done.stderr
    assert "the server does not serve gpt-4o-mini: choose one of its models with --model NAME" in done.stderr
    assert "works with coder-tui" not in done.stdout + done.stderr


def test_check_server_with_only_the_url_checks_the_only_model_and_its_window(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    serve_vllm(scripted_server, "qwen3-coder")
    scripted_server.add(reply(tool_call("read_file", path="README.md")))
    done = run_cli(["--check-server"], tmp_path, scripted_server)
    assert done.returncode == 0, done.stderr
    assert "qwen3-coder (offered by the server)" in done.stdout
    assert "65,536 tokens, from vLLM /v1/models (max_model_len); in use: 65,536" in done.stdout
    assert "works with coder-tui" in done.stdout


def test_headless_status_and_usage_events_use_the_servers_window(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    serve_vllm(scripted_server, "qwen3-coder")
    status = run_cli(["-p", "/status"], tmp_path, scripted_server)
    assert status.returncode == 0, status.stderr
    assert "of 65,536 tokens" in status.stdout and "reported by the server: vLLM" in status.stdout

    scripted_server.add(text("Hi."))
    done = run_cli(["-p", "hello", "--output-format", "json"], tmp_path, scripted_server)
    assert done.returncode == 0, done.stderr
    windows = [e["context_window"] for e in map(json.loads, done.stdout.splitlines()) if e["type"] == "UsageUpdated"]
    assert windows and set(windows) == {65_536}
