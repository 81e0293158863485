"""Issue 14: headless output is written in bursts (one write for what a moment produced, not one per line), in the
order it was written across stdout and stderr, and all of it by the end."""

from __future__ import annotations

import asyncio

from coder_tui.launch.headless import FLUSH_AFTER_S, Output, Printer


class Recording:
    """A stream that logs each write (with its name) to a shared list."""

    def __init__(self, name: str, log: list[tuple[str, str]]) -> None:
        self.name = name
        self.log = log

    def write(self, text: str) -> int:
        self.log.append((self.name, text))
        return len(text)

    def flush(self) -> None:
        pass


async def test_a_burst_is_one_write_per_stream_run_in_the_order_written() -> None:
    log: list[tuple[str, str]] = []
    printer = Printer()
    out = Output(Recording("out", log), lambda: None, printer)  # type: ignore[arg-type]
    err = Output(Recording("err", log), lambda: None, printer)  # type: ignore[arg-type]
    for text in ("Hello", ", ", "world\n"):
        out.write(text)
    err.write("[read] a.txt -> success\n")
    err.write("[read] b.txt -> success\n")
    out.write("Done.\n")
    assert log == []  # nothing written yet: the burst waits a moment
    await asyncio.sleep(FLUSH_AFTER_S * 3)
    assert log == [
        ("out", "Hello, world\n"),
        ("err", "[read] a.txt -> success\n[read] b.txt -> success\n"),
        ("out", "Done.\n"),
    ]
    out.write("tail\n")
    printer.flush()  # what the end of a run does: nothing waits for the timer
    assert log[-1] == ("out", "tail\n")


def test_without_a_running_loop_a_write_goes_out_at_once() -> None:
    log: list[tuple[str, str]] = []
    out = Output(Recording("out", log), lambda: None, Printer())  # type: ignore[arg-type]
    out.write("now\n")
    assert log == [("out", "now\n")]


async def test_a_broken_pipe_is_seen_when_the_burst_is_written() -> None:
    class Closed(Recording):
        def write(self, text: str) -> int:
            raise BrokenPipeError

    broken: list[bool] = []
    printer = Printer()
    out = Output(Closed("out", []), lambda: broken.append(True), printer)  # type: ignore[arg-type]
    out.write("lost\n")
    printer.flush()
    assert out.broken and broken == [True]
    out.write("dropped\n")  # later writes are dropped
    printer.flush()
    assert broken == [True]
