"""A small file's window is decoded in one go (issue 14); it must read exactly as the line-by-line path reads it:
the same lines, cuts, decodings and line count, for any bytes."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest

from engine.tools.read import _read_window, _streamed_window, _whole_file_window

# Pieces that make the hard cases: CRLF and lone CR, a BOM, UTF-8 and stray bytes, NUL-free binary-looking bytes.
PIECES = [b"a", b"b c", b"\n", b"\n", b"\r", b"\r\n", b"\xc3\xa9", b"\xe2\x82\xac", b"\xff", b"\xef\xbb\xbf", b"\t"]
MAX_CHARS = 4  # so short lines get cut: the cut marker, a split multibyte character
CAP_BYTES = MAX_CHARS * 4 + 4


def window_of(path: Path, offset: int, limit: int) -> tuple[list[str], int] | str:
    try:
        window = _read_window(path, "f", offset, limit, MAX_CHARS)
    except Exception as exc:  # noqa: BLE001 - the two paths must fail alike too
        return type(exc).__name__
    return window.lines, window.total


def streamed(data: bytes, offset: int, limit: int) -> tuple[list[str], int] | str:
    shown, total = _streamed_window(io.BytesIO(data), offset, limit, MAX_CHARS, CAP_BYTES)
    if offset > max(total, 1):
        return "ToolError"
    return shown, total


@pytest.mark.parametrize("seed", range(20))
def test_whole_file_reading_matches_line_by_line_reading(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    path = tmp_path / "f"
    whole = 0
    for _ in range(100):
        data = b"".join(rng.choice(PIECES) * rng.choice([1, 1, 1, 7, 30]) for _ in range(rng.randint(0, 25)))
        path.write_bytes(data)
        offset, limit = rng.randint(1, 6), rng.randint(1, 6)
        assert window_of(path, offset, limit) == streamed(data, offset, limit), data
        whole += _whole_file_window(data, offset, limit, MAX_CHARS, CAP_BYTES) is not None
    assert whole >= 20  # the case compared is the one-go decoding, not always its fallback


def test_a_line_of_exactly_the_cap_without_newline_reads_alike(tmp_path: Path) -> None:
    path = tmp_path / "f"
    for data in (b"x" * CAP_BYTES, b"x" * (CAP_BYTES - 1), b"y\n" + b"x" * CAP_BYTES, b"x" * CAP_BYTES + b"\n"):
        path.write_bytes(data)
        assert window_of(path, 1, 5) == streamed(data, 1, 5), data
