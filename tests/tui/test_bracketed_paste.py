"""A bracketed paste is text, never keys (SPEC 25): ``PasteCutter`` takes it out of the input whole, across reads."""

from __future__ import annotations

import pytest

from coder_tui.input.bracketed_paste import END, START, PasteCutter

HOSTILE = "a\x1b]52;c;eA==\x07b\x1b[A\x07\x1b"


def cut(*reads: str) -> list[tuple[bool, str]]:
    cutter = PasteCutter()
    return [piece for read in reads for piece in cutter.feed(read)]


def test_keys_around_a_paste_go_to_the_parser_and_the_paste_stays_whole() -> None:
    assert cut(f"x{START}{HOSTILE}{END}y") == [(False, "x"), (True, HOSTILE), (False, "y")]


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7])
def test_a_paste_cut_across_reads_at_any_point_stays_one_paste(size: int) -> None:
    stream = f"x{START}{HOSTILE}{END}\x1b"
    reads = [stream[index : index + size] for index in range(0, len(stream), size)]
    pieces = cut(*reads)
    assert [text for is_paste, text in pieces if is_paste] == [HOSTILE]
    assert "".join(text for is_paste, text in pieces if not is_paste) == "x"  # the last ESC waits for a flush


def test_a_lone_esc_is_held_until_no_more_input_comes() -> None:
    cutter = PasteCutter()
    assert cutter.feed("\x1b") == [] and cutter.holding
    assert cutter.flush() == "\x1b" and not cutter.holding
    assert cutter.feed("\x1b[A") == [(False, "\x1b[A")]
