"""SPEC 15 and 27: ``/cost`` sums what the server counted and what it cost in money (the price library's prices, or
the configuration's), for the session and for today; a budget stops a turn before a request would pass it."""

from __future__ import annotations

import socket
from decimal import Decimal
from pathlib import Path

import pytest

from engine.config.schema import ModelPrice
from engine.cost.prices import request_cost
from engine.events import ErrorEvent, UsageUpdated
from engine.messages import Usage
from engine.provider.wire_chunks import usage_of
from engine.settings_results import CostShown
from tests.support.fakes import make_orchestrator
from tests.support.scenario import reply, text
from tests.support.scripted_server import ScriptedServer

OPENAI = "https://api.openai.com/v1"


async def test_cost_sums_the_servers_counts(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("one"), usage=(1200, 30)), reply(text("two"), usage=(1300, 45)))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("first")
    await orch.run_input("second")
    await orch.run_input("/cost")
    result = log.of(CostShown)[-1]
    assert result.requests == 2
    assert (result.prompt_tokens, result.completion_tokens) == (2500, 75)
    assert "tokens this run: 2,575 (2,500 sent, 75 received) over 2 requests" in result.text


async def test_a_local_model_is_free_unless_priced(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("one"), usage=(1200, 30)))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    await orch.run_input("first")
    assert [event.session_cost_usd for event in log.of(UsageUpdated) if event.prompt_tokens] == [0.0]


async def test_a_configured_price_counts_in_the_session_and_today(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(text("one"), usage=(500_000, 100_000)), reply(text("two"), usage=(250_000, 0)))
    prices = {"scripted-model": {"input": 2.0, "output": 8.0}}
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, model_prices=prices)
    await orch.run_input("first")
    await orch.run_input("second")
    assert [event.session_cost_usd for event in log.of(UsageUpdated) if event.prompt_tokens] == [1.8, 2.3]
    await orch.run_input("/cost")
    result = log.of(CostShown)[-1]
    assert result.text.startswith("this session: $2.3000\ntoday (every session): $2.3000\n")
    # A new session starts at nothing; today still holds the first one's spend.
    await orch.run_input("/new")
    await orch.run_input("/cost")
    assert log.of(CostShown)[-1].text.startswith("this session: $0.0000\ntoday (every session): $2.3000\n")


async def test_a_turn_that_would_pass_the_budget_stops_before_the_request_is_sent(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    scripted_server.add(reply(text("one"), usage=(9000, 10)), reply(text("never sent")))
    prices = {"scripted-model": {"input": 100.0, "output": 0.0}}
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, model_prices=prices, budget_usd=1.0)
    await orch.run_input("first")
    assert len(scripted_server.requests) == 1
    outcome = await orch.run_input("second")
    assert len(scripted_server.requests) == 1  # the server never heard of it
    assert outcome.reason == "error"
    message = log.of(ErrorEvent)[-1].message
    assert "budget reached" in message and "$0.9000 of its $1.00" in message


async def test_a_budget_within_reach_lets_the_request_go(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(text("one"), usage=(900, 10)), reply(text("two")))
    prices = {"scripted-model": {"input": 1.0, "output": 0.0}}
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, model_prices=prices, budget_usd=1.0)
    await orch.run_input("first")
    await orch.run_input("second")
    assert len(scripted_server.requests) == 2


def test_the_price_library_prices_a_known_model_without_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> None:
        raise AssertionError("the price library reached for the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    plain = request_cost(Usage(prompt_tokens=1_000_000, completion_tokens=0), "gpt-4o", OPENAI, {})
    cached = request_cost(Usage(prompt_tokens=1_000_000, cached_tokens=1_000_000), "gpt-4o", OPENAI, {})
    assert plain is not None and cached is not None and Decimal(0) < cached < plain


def test_configured_prices_win_and_price_cached_tokens() -> None:
    price = {"gpt-4o": ModelPrice(input=4.0, output=10.0, cached_input=1.0)}
    usage = Usage(prompt_tokens=1_000_000, cached_tokens=500_000, completion_tokens=100_000)
    assert request_cost(usage, "gpt-4o", OPENAI, price) == Decimal("3.5")


def test_an_unknown_server_has_no_price_and_a_local_one_is_free() -> None:
    usage = Usage(prompt_tokens=1000, completion_tokens=10)
    assert request_cost(usage, "my-model", "https://llm.example.net/v1", {}) is None
    for local in ("http://localhost:11434/v1", "http://192.168.1.5:8000/v1", "http://127.0.0.1:8080/v1"):
        assert request_cost(usage, "qwen2.5-coder", local, {}) == 0


def test_cached_tokens_are_read_from_the_usage_the_server_reports() -> None:
    openai = usage_of({"usage": {"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105,
                                 "prompt_tokens_details": {"cached_tokens": 64}}})
    deepseek = usage_of({"usage": {"prompt_tokens": 100, "completion_tokens": 5, "prompt_cache_hit_tokens": 32}})
    assert openai is not None and openai.cached_tokens == 64
    assert deepseek is not None and deepseek.cached_tokens == 32
