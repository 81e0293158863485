"""SPEC 18: named provider profiles, `/model profile:model`, `--provider`, context windows, reasoning effort."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.config import Config
from engine.provider.known_windows import known_context_window
from engine.provider.profiles import effective_config, split_model_spec
from tests.headless.test_headless_cli import run_cli
from tests.support.fakes import make_orchestrator
from tests.support.scenario import text
from tests.support.scripted_server import ScriptedServer

PROFILES = {
    "local": {"base_url": "http://127.0.0.1:1/v1", "model": "qwen3:8b", "context_window": 32768},
    "router": {"base_url": "http://127.0.0.1:2/v1", "api_key_env": "ROUTER_KEY", "model": "anthropic/claude-sonnet-4.5",
               "reasoning_effort": "high", "headers": {"X-Title": "coder-tui"}},
}


def config(**data: object) -> Config:
    return Config.model_validate({"providers": PROFILES, **data})


def test_a_model_name_starts_with_a_profile_only_when_that_profile_exists() -> None:
    profiles = config().providers
    assert split_model_spec("local:llama3", profiles) == ("local", "llama3")
    assert split_model_spec("router:", profiles) == ("router", "")
    assert split_model_spec("qwen3:8b", profiles) == (None, "qwen3:8b")


def test_a_profile_sets_the_server_key_variable_model_effort_headers_and_window() -> None:
    chosen = effective_config(config(), "router", "")
    assert chosen.model == "anthropic/claude-sonnet-4.5"
    assert chosen.provider.base_url == "http://127.0.0.1:2/v1" and chosen.provider.api_key_env == "ROUTER_KEY"
    assert chosen.provider.reasoning_effort == "high" and chosen.provider.headers == {"X-Title": "coder-tui"}
    assert chosen.context_window == 200_000, "known window of the model when the profile gives none"
    assert effective_config(config(), "local", "other").context_window == 32768


def test_the_configured_window_wins_over_known_ones_and_unknown_models_get_the_default() -> None:
    assert effective_config(config(context_window=50_000), None, "gpt-4.1").context_window == 50_000
    assert effective_config(config(), None, "gpt-4.1").context_window == 1_047_576
    assert effective_config(config(), None, "my-finetune").context_window == 128_000


@pytest.mark.parametrize(
    ("model", "window"),
    [("deepseek-chat", 128_000), ("google/gemini-3-pro-preview", 1_048_576), ("qwen3:8b", 40_960),
     ("qwen3-coder:30b", 262_144), ("unknown", None)],
)
def test_known_windows_match_by_name_without_path_or_tag(model: str, window: int | None) -> None:
    assert known_context_window(model) == window


async def test_model_command_switches_to_a_profile_server(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    with ScriptedServer() as other:
        other.add(text("from the profile"))
        profiles = {"other": {"base_url": other.base_url, "model": "other-model", "reasoning_effort": "low",
                              "headers": {"X-Title": "coder-tui"}}}
        orchestrator, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, providers=profiles)

        switched = await orchestrator.run_input("/model other:")
        outcome = await orchestrator.run_input("hi")

        assert switched.ok and outcome.ok and outcome.text == "from the profile"
        assert orchestrator.model == "other-model" and orchestrator.provider_profile == "other"
        request = other.requests[0]
        assert request.body["model"] == "other-model" and request.body["reasoning_effort"] == "low"
        assert request.headers["x-title"] == "coder-tui"
        assert not scripted_server.requests
        saved = json.loads((tmp_path / ".coder" / "config.json").read_text())
        assert saved["model"] == "other:"


def test_provider_option_runs_a_headless_turn_on_that_profile(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    (tmp_path / ".xdg" / "coder").mkdir(parents=True)
    profiles = {"scripted": {"base_url": scripted_server.base_url, "model": "profile-model"}}
    # The user's config: a folder's own config sets profiles only once trusted (SPEC 19).
    (tmp_path / ".xdg" / "coder" / "config.json").write_text(json.dumps({"providers": profiles}))
    scripted_server.add(text("hello from the profile"))

    done = run_cli(["--provider", "scripted", "-p", "hi"], tmp_path, None)
    unknown = run_cli(["--provider", "nope", "-p", "hi"], tmp_path, None)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "hello from the profile"
    assert scripted_server.requests[0].body["model"] == "profile-model"
    assert unknown.returncode == 2 and "no provider profile named 'nope'" in unknown.stderr
    assert "scripted" in unknown.stderr
