"""Issue 14: the first request does not wait for the token encoding; the count follows once it is loaded.
Issue 32: the encoding's tables (tens of megabytes) load only when a count must be exact: near the compaction
threshold, or for a server that reports no usage; otherwise the meter shows the server's figures.

The encoding's load is held on an event here (a real one takes a few tenths of a second), so what the turn does
while it loads is seen for certain.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.context import tokens
from engine.events import UsageUpdated
from tests.support.fakes import make_orchestrator, record_calls
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


@pytest.fixture
def held_load(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Every encoding load waits until the returned event is set (set at the end in any case)."""
    release = threading.Event()
    real = tokens.load_encoding

    def held(name: str) -> tokens.LoadedEncoding:
        release.wait(30)
        return real(name)

    monkeypatch.setattr(tokens, "load_encoding", held)
    yield release
    release.set()


async def until(condition, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


async def test_a_server_that_reports_no_usage_gets_exact_counts_and_its_request_does_not_wait(
    tmp_path: Path, scripted_server: ScriptedServer, held_load: threading.Event
) -> None:
    scripted_server.add(reply(text("Hello.")), reply(text("Again.")))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    # The first request: whether the server reports usage is not known yet, so the meter shows an estimate and
    # nothing is loaded for it.
    assert (await asyncio.wait_for(orch.run_input("hi"), 10)).ok
    [estimate] = log.of(UsageUpdated)
    assert estimate.context_tokens > 0 and not orch.token_counter.ready
    assert orch.token_counter.server_reports is False

    # The server said nothing of usage: the next count is exact, and its request goes while the encoding loads.
    running = asyncio.create_task(orch.run_input("and again"))
    await until(lambda: len(scripted_server.requests) == 2)
    assert not orch.token_counter.ready and len(log.of(UsageUpdated)) == 1
    held_load.set()
    assert (await asyncio.wait_for(running, 10)).ok
    usage = log.of(UsageUpdated)[-1]
    session = orch.session
    sent = session.messages[:3]  # the second request held both inputs and the first answer
    assert usage.context_tokens == orch.token_counter.total(sent, system=session.system_prompt, tools=session.tools)


async def test_a_server_that_reports_usage_feeds_the_meter_and_the_encoding_is_never_loaded(
    tmp_path: Path, scripted_server: ScriptedServer, held_load: threading.Event
) -> None:
    scripted_server.add(reply(text("Hello."), usage=(4321, 3)), reply(text("Again."), usage=(4400, 5)))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    for words in ("hi", "and again"):
        assert (await asyncio.wait_for(orch.run_input(words), 10)).ok
    shown = [u.context_tokens for u in log.of(UsageUpdated)]
    # An estimate before the first answer, then only the server's own figures.
    assert shown[1:] == [4324, 4405]
    assert not orch.token_counter.ready
    result = await orch.run_input("/status")
    assert result.ok
    status = next(e for e in log.events if getattr(e, "command", "") == "/status")
    assert "4,405 of" in status.text and "the server's usage" in status.text


async def test_a_request_that_may_need_compaction_waits_for_the_exact_count(
    tmp_path: Path, scripted_server: ScriptedServer, held_load: threading.Event
) -> None:
    scripted_server.add(reply(text("Hello.")))
    # 30,000 bytes of input against a 2,048-token window: its byte bound passes 70% of the window.
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url, context_window=2048)
    seen_while_loading: list[int] = []

    async def release_later() -> None:
        await asyncio.sleep(0.3)
        seen_while_loading.append(len(scripted_server.requests))
        held_load.set()

    releasing = asyncio.create_task(release_later())
    await asyncio.wait_for(orch.run_input("word " * 6000), 20)
    await releasing
    assert seen_while_loading == [0]
    assert orch.token_counter.ready


def test_upper_bound_is_never_below_the_count() -> None:
    from engine.messages import FunctionCall, Message, ToolCall

    counter = tokens.TokenCounter("gpt-4o")
    messages = [
        Message(role="user", content="héllo wörld — ünïcode 漢字 🙂 " * 40),
        Message(
            role="assistant",
            content="",
            tool_calls=[ToolCall(id="call_1", function=FunctionCall(name="read", arguments='{"path": "a.py"}'))],
        ),
        Message(role="tool", content="x = 1\n" * 300, tool_call_id="call_1", name="read"),
        Message(role="assistant", content="    indented\n\n\tcode  " * 50),
    ]
    tools_array = [{"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}]
    for end in range(len(messages) + 1):
        exact = counter.total(messages[:end], system="You are a coder. ✓", tools=tools_array)
        bound = counter.upper_bound(messages[:end], system="You are a coder. ✓", tools=tools_array)
        assert bound >= exact


async def test_a_new_message_is_counted_once_its_request_is_out(
    tmp_path: Path, scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "big.py").write_text("total = total + 1\n" * 1000)
    scripted_server.add(reply(tool_call("read", path="big.py")), reply(text("Read it.")))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    counter = orch.token_counter
    counter.load()
    counted: list[tuple[str, int]] = []  # (role, requests the server had when it was counted)
    real_measure = counter.measure

    def measure_once_the_server_has_it(message):  # type: ignore[no-untyped-def]
        # The server runs in a thread of this process: it goes on while this waits for the request to arrive.
        deadline = time.monotonic() + 5
        while message.role == "tool" and len(scripted_server.requests) < 2 and time.monotonic() < deadline:
            time.sleep(0.001)
        counted.append((message.role, len(scripted_server.requests)))
        return real_measure(message)

    monkeypatch.setattr(counter, "measure", measure_once_the_server_has_it)
    outcome = await asyncio.wait_for(orch.run_input("read big.py"), 20)  # far under the compaction threshold

    assert outcome.ok
    # The tool's result went out in the second request before it was counted (the turn's first request may wait
    # for its connection: counting could come first there).
    assert ("tool", 2) in counted
    usage = log.of(UsageUpdated)[-1]  # and the turn ends with the exact count of the last request
    session = orch.session
    monkeypatch.undo()
    fresh = tokens.TokenCounter(counter.model)
    assert usage.context_tokens == fresh.total(session.messages[:3], system=session.system_prompt, tools=session.tools)


def test_upper_bound_uses_the_exact_counts_it_has_and_measures_each_message_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from engine.messages import Message

    measured = record_calls(monkeypatch, tokens, "_byte_bound")
    counter = tokens.TokenCounter("gpt-4o")
    history = [Message.user("x = 1\n" * 200), Message.assistant("ok " * 300), Message.user("again")]
    bytes_only = counter.upper_bound(history[:2], system="sys")
    assert counter.upper_bound(history, system="sys") >= bytes_only
    assert measured == history  # each once, though bounded twice

    counter.total(history[:2], system="sys")  # the first two are counted exactly now
    mixed = counter.upper_bound(history, system="sys")
    assert counter.total(history, system="sys") <= mixed < counter.upper_bound(history[2:] + history[:2], system="sys")


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The encodings loaded from now on."""
    loaded: list[str] = []
    real = tokens.load_encoding

    def recorded(name: str) -> tokens.LoadedEncoding:
        loaded.append(name)
        return real(name)

    monkeypatch.setattr(tokens, "load_encoding", recorded)
    return loaded


async def test_a_front_end_that_shows_no_counts_never_loads_the_encoding_while_compaction_is_far(
    tmp_path: Path, scripted_server: ScriptedServer, loads: list[str]
) -> None:
    """Headless text output shows no context size: counting every message would only load the encoding (a tenth of
    a second or more, holding the interpreter in the middle of the turn)."""
    (tmp_path / "a.txt").write_text("one line\n")
    scripted_server.add(reply(tool_call("read", path="a.txt"), usage=(900, 5)), reply(text("Done."), usage=(950, 2)))
    orch, log, _ = make_orchestrator(tmp_path, scripted_server.base_url)
    orch.counts_shown = False
    outcome = await orch.run_input("read a.txt")
    assert outcome.ok
    assert loads == [] and not orch.token_counter.ready
    # The server's own figures still go out as events.
    assert [u.prompt_tokens for u in log.of(UsageUpdated)] == [900, 950]


async def test_without_shown_counts_a_request_near_the_threshold_is_still_counted_exactly(
    tmp_path: Path, scripted_server: ScriptedServer, loads: list[str]
) -> None:
    scripted_server.add(reply(text("Done.")))
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, context_window=2_000)
    orch.counts_shown = False
    outcome = await orch.run_input("word " * 1_000)  # its upper bound passes 70% of the window
    assert outcome.ok
    assert loads and orch.token_counter.ready


async def test_the_servers_count_bounds_the_next_request_so_the_encoding_waits_until_the_threshold_is_near(
    tmp_path: Path, scripted_server: ScriptedServer, loads: list[str]
) -> None:
    """Issue 32: bounded by its bytes (about four a token), a long session's request seemed to reach the threshold
    at a quarter of it, and the engine loaded the encoding (30 MB) with no compaction in sight. The server's count
    of the last request, plus the bytes of what is new, is the bound: nothing loads until it nears the threshold,
    and then the request is counted exactly as before."""
    window = 40_000  # threshold 70%: 28,000 tokens
    words = "word " * 1_200  # 6,000 bytes, about 1,200 tokens
    # What a real server counts for these requests (tools and system prompt included): tokens, not bytes.
    scripted_server.add(
        reply(text("One."), usage=(6_000, 2)),
        reply(text("Two."), usage=(7_300, 2)),
        reply(text("Three."), usage=(8_600, 2)),
        reply(text("Four."), usage=(23_000, 2)),
        reply(text("Five."), usage=(24_300, 2)),
    )
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, context_window=window)
    for _ in range(3):
        assert (await asyncio.wait_for(orch.run_input(words), 10)).ok
    session = orch.session
    parts = {"system": session.system_prompt, "tools": session.tools}
    assert orch.token_counter.upper_bound(session.messages, **parts) < 28_000  # type: ignore[arg-type]
    assert tokens.TokenCounter(session.model).upper_bound(session.messages, **parts) > 28_000  # type: ignore[arg-type]
    assert loads == [] and not orch.token_counter.ready
    assert (await asyncio.wait_for(orch.run_input(words), 10)).ok  # the server said 8,600: still far
    assert loads == []
    # It said 23,000 for the fourth: with 6,000 bytes more the fifth may pass 28,000, so it is counted exactly.
    assert (await asyncio.wait_for(orch.run_input(words), 10)).ok
    assert loads and orch.token_counter.ready


def test_a_server_report_bounds_only_the_requests_that_continue_it() -> None:
    from engine.messages import Message

    counter = tokens.TokenCounter("gpt-4o")
    history = [Message(role="user", content="a" * 4_000), Message(role="assistant", content="b" * 4_000)]
    later = [*history, Message(role="user", content="c" * 100)]
    bytes_bound = counter.upper_bound(later, system="sys")
    counter.report(1_000, history, system="sys")
    reported = counter.upper_bound(later, system="sys")
    assert reported < bytes_bound and 1_100 <= reported <= 1_000 + 100 + 20
    # A new system prompt is added whole (never less than a bound); a history that does not continue the report
    # (a compaction's) is bounded by its bytes.
    assert counter.upper_bound(later, system="sys " * 100) >= reported + 400
    compacted = [Message(role="user", content="summary " * 10), later[-1]]
    assert counter.upper_bound(compacted, system="sys") == tokens.TokenCounter("gpt-4o").upper_bound(
        compacted, system="sys"
    )
    assert not counter.ready  # none of it needed the encoding
