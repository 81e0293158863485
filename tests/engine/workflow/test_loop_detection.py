"""SPEC 11: the same tool call 5 times in a row, a cycle of calls repeated, or chanting text stops the turn."""

from __future__ import annotations

import pytest

import json
import random
from collections.abc import Mapping, Sequence
from pathlib import Path

from engine.provider.assembler import StreamAssembler
from engine.provider.base import ChatRequest, TextChunk
from engine.workflow.loop_detection import CHUNK_REPEATS, LoopDetector, LoopFound, canonical_arguments
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


def feed_calls(detector: LoopDetector, calls: Sequence[tuple[str, Mapping[str, object]]]) -> list[LoopFound | None]:
    return [detector.add_tool_call(name, json.dumps(arguments)) for name, arguments in calls]


def stream(detector: LoopDetector, content: str, size: int = 7) -> LoopFound | None:
    found = None
    for start in range(0, len(content), size):
        found = detector.add_text(content[start : start + size])
    return found


def test_same_tool_call_five_times_in_a_row_is_a_loop() -> None:
    detector = LoopDetector()
    results = feed_calls(detector, [("read", {"path": "a.txt"})] * 5)
    assert results[:4] == [None] * 4
    found = results[4]
    assert found is not None and found.kind == "repeated_tool_call"
    assert 'read {"path":"a.txt"}' in found.what and "5 times in a row" in found.what


def test_argument_order_and_spacing_do_not_hide_a_repeat() -> None:
    detector = LoopDetector()
    variants = ['{"path": "a", "limit": 5}', '{"limit":5,"path":"a"}', '{ "path":"a" ,"limit": 5 }']
    for i in range(4):
        assert detector.add_tool_call("read", variants[i % 3]) is None
    assert detector.add_tool_call("read", variants[1]) is not None
    assert canonical_arguments("not json ") == "not json"


def test_calls_with_different_arguments_are_no_loop() -> None:
    detector = LoopDetector()
    assert all(r is None for r in feed_calls(detector, [("read", {"path": f"f{i}.py"}) for i in range(30)]))


def test_an_interrupted_run_of_repeats_starts_counting_again() -> None:
    detector = LoopDetector()
    calls = [("read", {"path": "a"})] * 4 + [("list", {"path": "."})] + [("read", {"path": "a"})] * 4
    assert all(r is None for r in feed_calls(detector, calls))


def test_a_cycle_of_two_calls_repeated_five_times_is_a_loop() -> None:
    detector = LoopDetector()
    cycle = [("read", {"path": "a.py"}), ("edit", {"path": "a.py", "old_string": "x", "new_string": "y"})]
    results = feed_calls(detector, cycle * 5)
    assert results[:9] == [None] * 9
    found = results[9]
    assert found is not None and found.kind == "tool_cycle"
    assert "cycle of 2 calls" in found.what and "read" in found.what and "edit" in found.what


def test_a_cycle_of_five_calls_is_caught_and_a_cycle_of_six_is_not() -> None:
    five = [("bash", {"command": f"step {i}"}) for i in range(5)]
    detector = LoopDetector()
    results = feed_calls(detector, five * 5)
    assert results[-1] is not None and results[-1].kind == "tool_cycle" and results[-2] is None
    six = [("bash", {"command": f"step {i}"}) for i in range(6)]
    assert all(r is None for r in feed_calls(LoopDetector(), six * 6))


def test_a_cycle_repeated_four_times_is_no_loop() -> None:
    cycle = [("read", {"path": "a"}), ("bash", {"command": "make"}), ("grep", {"pattern": "x"})]
    assert all(r is None for r in feed_calls(LoopDetector(), cycle * 4))


def test_a_finding_stays_until_reset() -> None:
    detector = LoopDetector()
    feed_calls(detector, [("read", {"path": "a"})] * 5)
    assert detector.add_tool_call("list", "{}") is detector.found
    detector.reset()
    assert detector.found is None
    assert detector.add_tool_call("read", '{"path": "a"}') is None


def test_chanting_text_in_one_stream_is_a_loop() -> None:
    detector = LoopDetector()
    found = stream(detector, "I will now fix the failing test in the parser module. " * 30)
    assert found is not None and found.kind == "repeated_text"
    assert f"repeated {CHUNK_REPEATS} times" in found.what
    assert "fix the failing test" in found.what


@pytest.mark.parametrize(("times", "fires"), [(9, False), (10, True)])
def test_chanting_fires_at_its_documented_repeat_count_and_not_one_below(times: int, fires: bool) -> None:
    """The documented boundary, as a literal: the same 50-character chunk 10 times in one stream is a loop."""
    sentence = "I will now fix the failing test in the parser module. "
    assert len(sentence) >= 50  # every chunk of the first copy recurs once in each later copy
    found = stream(LoopDetector(), sentence * times)
    assert (found is not None) is fires


def test_repeated_lines_inside_a_code_block_are_no_loop() -> None:
    code = "```python\n" + "    assert parse(value) == expected_value_for_this_case\n" * 40 + "```\n"
    assert stream(LoopDetector(), "Here is the test:\n" + code + "That is all.") is None


def test_a_loop_after_a_code_block_is_still_caught() -> None:
    code = "```\n" + "same line of code that repeats itself many many times\n" * 20 + "```\n"
    found = stream(LoopDetector(), code + "Let me try that again, differently this time. " * 30)
    assert found is not None and found.kind == "repeated_text"


def test_distinct_lines_sharing_a_long_prefix_are_no_loop() -> None:
    content = "".join(f"Checking the configuration file for entry number {i} now.\n" for i in range(60))
    assert stream(LoopDetector(), content) is None


def test_repeated_markdown_structure_is_no_loop() -> None:
    table = "| name | value |\n|---|---|\n" + "| retries | 3 for each of the configured upstream servers |\n" * 30
    bullets = "- retry the request against the same upstream server again\n" * 30
    assert stream(LoopDetector(), table) is None
    assert stream(LoopDetector(), bullets) is None


def test_ordinary_long_prose_is_no_loop() -> None:
    rng = random.Random(3)
    words = ["the", "parser", "reads", "tokens", "and", "builds", "a", "tree", "while", "checker", "walks", "errors"]
    content = " ".join(rng.choice(words) for _ in range(3000))
    assert stream(LoopDetector(), content, size=13) is None


def test_text_repetition_is_judged_within_one_stream() -> None:
    detector = LoopDetector()
    sentence = "I will now fix the failing test in the parser module. "
    assert stream(detector, sentence * 6) is None
    detector.new_stream()
    assert stream(detector, sentence * 6) is None
    detector.add_tool_call("read", "{}")
    assert stream(detector, sentence * 6) is None


def test_a_loop_is_found_after_a_long_stream() -> None:
    rng = random.Random(5)
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda"]
    prose = " ".join(rng.choice(words) for _ in range(2000)) + ".\n"
    found = stream(LoopDetector(), prose + "Retrying the same command once more to be sure. " * 30)
    assert found is not None and "Retrying" in found.what


async def _assembled(server: ScriptedServer, detector: LoopDetector, requests: int) -> list[LoopFound | None]:
    """Streams ``requests`` answers through the real provider, feeding the detector as a turn would."""
    from engine.provider.openai_provider import OpenAIProvider

    provider = OpenAIProvider(base_url=server.base_url, api_key="sk-test", max_retries=0)
    findings: list[LoopFound | None] = []
    try:
        for _ in range(requests):
            detector.new_stream()
            assembler = StreamAssembler()
            request = ChatRequest(model="scripted-model", messages=[{"role": "user", "content": "go"}], tools=[])
            async for chunk in provider.stream(request):
                assembler.feed(chunk)
                if isinstance(chunk, TextChunk):
                    findings.append(detector.add_text(chunk.text))
            for call in assembler.message().tool_calls or []:
                findings.append(detector.add_tool_call(call.name, call.function.arguments))
    finally:
        await provider.aclose()
    return findings


async def test_repeated_tool_calls_from_the_model_are_caught(scripted_server: ScriptedServer, tmp_path: Path) -> None:
    scripted_server.add(*[reply(tool_call("read", path="a.txt", limit=20)) for _ in range(5)])
    findings = await _assembled(scripted_server, LoopDetector(), 5)
    assert findings[:4] == [None] * 4
    assert findings[4] is not None and findings[4].kind == "repeated_tool_call"


async def test_chanting_from_the_model_is_caught(scripted_server: ScriptedServer, tmp_path: Path) -> None:
    scripted_server.add(text("Let me check the file again to be completely sure. " * 25, chunk=3))
    findings = await _assembled(scripted_server, LoopDetector(), 1)
    assert any(f is not None and f.kind == "repeated_text" for f in findings)
