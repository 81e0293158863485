"""A frame reaches the terminal in one write (issue 46): Textual's three pieces of a frame (begin synchronized update,
the frame, end) were three hand-overs to its output thread."""

from __future__ import annotations

from coder_tui.input.input_driver import PromptEscapeDriver

SYNC_START, SYNC_END = "\x1b[?2026h", "\x1b[?2026l"


class Output:
    """Stands for Textual's output thread: records each piece handed to it."""

    def __init__(self) -> None:
        self.writes: list[str] = []

    def write(self, text: str) -> None:
        self.writes.append(text)


def driver_writing_to(output: Output) -> PromptEscapeDriver:
    driver = PromptEscapeDriver.__new__(PromptEscapeDriver)
    driver._writer_thread = output  # type: ignore[assignment]
    return driver


def test_the_pieces_of_a_frame_are_one_write() -> None:
    output = Output()
    driver = driver_writing_to(output)
    with driver.one_write():
        driver.write(SYNC_START)
        driver.write("\x1b[1;1Hhello")
        driver.write(SYNC_END)
    assert output.writes == [SYNC_START + "\x1b[1;1Hhello" + SYNC_END]


def test_writes_outside_a_frame_go_at_once_and_a_frame_inside_a_frame_joins_it() -> None:
    output = Output()
    driver = driver_writing_to(output)
    driver.write("\x1b[?25l")
    assert output.writes == ["\x1b[?25l"]
    with driver.one_write():
        driver.write("a")
        with driver.one_write():
            driver.write("b")
        assert output.writes == ["\x1b[?25l"]
    assert output.writes == ["\x1b[?25l", "ab"]
    with driver.one_write():
        pass
    assert output.writes == ["\x1b[?25l", "ab"]  # an empty frame writes nothing
    driver.write("c")
    assert output.writes[-1] == "c"


def test_a_frame_that_fails_still_writes_what_it_held() -> None:
    output = Output()
    driver = driver_writing_to(output)
    try:
        with driver.one_write():
            driver.write(SYNC_START)
            raise RuntimeError("render failed")
    except RuntimeError:
        pass
    # The terminal gets the begin-sync it was sent, and the next write is not held.
    assert output.writes == [SYNC_START]
    driver.write("next")
    assert output.writes == [SYNC_START, "next"]
