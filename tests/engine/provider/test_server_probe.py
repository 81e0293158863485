"""SPEC 18: a local server's context window read from the server (Ollama /api/show and /api/ps, llama.cpp /props,
LM Studio /api/v0/models, vLLM /v1/models), applied unless the configuration sets one, shown in /status with where
it came from; and a prompt the server cut named in a warning that says which setting to raise."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from engine.command_results import CommandReply
from engine.events import Notice
from engine.provider.server_probe import probe_server
from tests.support.fakes import make_orchestrator
from tests.support.scenario import reply, text
from tests.support.scripted_server import ScriptedServer

SERVERS = {path.stem: json.loads(path.read_text()) for path in sorted((Path(__file__).parent / "servers").glob("*.json"))}


def play(server: ScriptedServer, name: str) -> dict[str, Any]:
    """The scripted server answers the routes of ``servers/<name>.json`` as that server does."""
    recorded = SERVERS[name]
    for route, payload in recorded["routes"].items():
        method, path = route.split(" ", 1)
        server.answer(method, path, payload)
    return recorded


@pytest.mark.parametrize("name", SERVERS)
async def test_probe_reads_each_server(name: str, scripted_server: ScriptedServer) -> None:
    recorded = play(scripted_server, name)
    expect = recorded["expect"]

    info = await probe_server(scripted_server.base_url, recorded["model"])

    assert info.kind == expect["kind"]
    assert info.context_window == expect["context_window"]
    assert expect.get("version", info.version) == info.version
    if "window_from" in expect:
        assert expect["window_from"] in (info.window_from or "")


async def test_probe_of_a_server_that_is_not_there_ends_within_its_timeout() -> None:
    start = time.monotonic()
    info = await probe_server("http://127.0.0.1:9/v1", "m", timeout=0.5)
    assert info.kind is None and time.monotonic() - start < 2


@pytest.mark.parametrize(("name", "window", "source"), [
    ("ollama", 8192, "reported by the server: Ollama /api/show (num_ctx)"),
    ("llama_cpp", 16384, "reported by the server: llama.cpp /props (n_ctx)"),
    ("lm_studio", 4096, "reported by the server: LM Studio /api/v0/models (loaded_context_length)"),
    ("vllm", 32768, "reported by the server: vLLM /v1/models (max_model_len)"),
])
async def test_session_takes_the_servers_window_and_status_says_where_from(
    name: str, window: int, source: str, tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    recorded = play(scripted_server, name)
    orchestrator, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, model=recorded["model"])

    orchestrator.start_background()
    await orchestrator.server_window.wait()

    assert orchestrator.context_window == window
    assert scripted_server.probes and not scripted_server.requests  # kept apart from the script's requests
    # With the key: vLLM started with --api-key refuses even /v1/models without it.
    assert all(probe.headers["authorization"] == "Bearer sk-test-key" for probe in scripted_server.probes)
    await orchestrator.run_input("/status")
    status = log.of(CommandReply)[-1]
    assert status.context_window == window and status.context_window_source == source
    assert source in status.text


async def test_a_configured_window_wins_over_the_servers(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    recorded = play(scripted_server, "ollama")
    orchestrator, _, _ = make_orchestrator(
        tmp_path, scripted_server.base_url, model=recorded["model"], context_window=32_000
    )
    orchestrator.start_background()
    await orchestrator.server_window.wait()
    assert orchestrator.context_window == 32_000
    assert orchestrator.context_window_source == "set in the configuration"


@pytest.mark.parametrize(("name", "setting"), [
    ("ollama", "num_ctx"), ("llama_cpp", "-c N"), ("lm_studio", "context length"), ("vllm", "--max-model-len"),
    ("openai_compatible", "OLLAMA_CONTEXT_LENGTH"),
])
async def test_a_prompt_the_server_cut_is_named_with_the_setting_to_raise(
    name: str, setting: str, tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    """Ollama past num_ctx keeps the last num_ctx tokens and reports those as the prompt's tokens."""
    recorded = play(scripted_server, name)
    scripted_server.add(reply(text("It is long."), usage=(4096, 4)), reply(text("Short."), usage=(40, 2)))
    orchestrator, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, model=recorded["model"])
    orchestrator.token_counter.load()
    orchestrator.start_background()
    await orchestrator.server_window.wait()
    long_input = "Please review this log:\n" + "\n".join(f"line {n}: value={n * 7} status=ok" for n in range(2500))

    assert (await orchestrator.run_input(long_input)).ok

    warnings = [n.text for n in log.of(Notice) if "cut the prompt" in n.text]
    assert len(warnings) == 1 and setting in warnings[0], warnings
    assert "of about" in warnings[0]


async def test_a_prompt_read_whole_gives_no_warning(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    play(scripted_server, "ollama")
    scripted_server.add(reply(text("Fine."), usage=(30_000, 2)))
    orchestrator, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    orchestrator.token_counter.load()
    long_input = "Please review this log:\n" + "\n".join(f"line {n}: value={n * 7} status=ok" for n in range(2500))

    assert (await orchestrator.run_input(long_input)).ok
    assert not [n for n in log.of(Notice) if "cut the prompt" in n.text]
