"""Inline ``<think>`` reasoning (SPEC 18): split as it streams, wherever the deltas cut the tags."""

from __future__ import annotations

import pytest

from engine.provider.think_tags import ThinkTagSplitter, split_prefilled

ANSWER = "<think>plan it</think>\n\nPONG <think> is a tag"


def split(pieces: list[str]) -> tuple[str, str]:
    splitter = ThinkTagSplitter()
    texts, reasonings = [], []
    for piece in [*pieces, None]:
        text, reasoning = splitter.finish() if piece is None else splitter.feed(piece)
        texts.append(text)
        reasonings.append(reasoning)
    return "".join(texts), "".join(reasonings)


@pytest.mark.parametrize("cut", range(1, len(ANSWER)))
def test_a_think_block_cut_at_any_character_is_reasoning(cut: int) -> None:
    assert split([ANSWER[:cut], ANSWER[cut:]]) == ("PONG <think> is a tag", "plan it")


def test_one_character_per_delta() -> None:
    assert split(list(ANSWER)) == ("PONG <think> is a tag", "plan it")


def test_a_tag_later_in_the_answer_is_text() -> None:
    assert split(["Use <think> to", " mark</think> it"]) == ("Use <think> to mark</think> it", "")


def test_leading_white_space_before_the_block_is_dropped_and_thinking_tags_count_too() -> None:
    assert split(["\n  <thinking>a</thinking>b"]) == ("b", "a")


def test_an_unclosed_block_is_reasoning_and_an_unfinished_tag_is_text() -> None:
    assert split(["<think>still going"]) == ("", "still going")
    assert split(["<thi"]) == ("<thi", "")


def test_a_closing_tag_without_opening_splits_the_finished_message() -> None:
    assert split_prefilled("plan\n</think>\n\nPONG") == ("PONG", "plan")
    assert split_prefilled("<think>x</think>y") is None
    assert split_prefilled("no tag") is None
