"""Reading and writing text without damaging it: encodings, BOM, CRLF, atomic writes, stale-file refusal."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from engine.errors import ToolError
from engine.tools.base import ToolContext
from engine.text_diff import looks_binary
from engine.tools.fileio import (
    TextDocument,
    atomic_write,
    decode_text,
    ensure_unchanged_since_known,
)


def test_decode_utf8_keeps_text_and_notes_lf() -> None:
    assert decode_text("héllo\nwörld\n".encode()) == TextDocument(text="héllo\nwörld\n")


def test_decode_strips_and_remembers_a_utf8_bom() -> None:
    document = decode_text(b"\xef\xbb\xbfname = 1\n")
    assert document.text == "name = 1\n"
    assert document.bom


def test_decode_falls_back_to_latin1() -> None:
    document = decode_text("café\n".encode("latin-1"))
    assert document.text == "café\n"
    assert document.encoding == "latin-1"


def test_decode_detects_crlf_and_normalises_it() -> None:
    document = decode_text(b"a\r\nb\r\nc\n")
    assert document.newline == "\r\n"
    assert document.text == "a\nb\nc\n"


def test_encode_restores_crlf_and_bom() -> None:
    document = decode_text(b"\xef\xbb\xbfa\r\nb\r\n")
    assert document.encode("a\nB\n", "x") == b"\xef\xbb\xbfa\r\nB\r\n"


def test_encode_does_not_double_crlf_given_crlf_text() -> None:
    assert TextDocument(text="", newline="\r\n").encode("a\r\nb\n", "x") == b"a\r\nb\r\n"


def test_encode_refuses_text_the_file_encoding_cannot_hold() -> None:
    with pytest.raises(ToolError, match="notes.txt.*latin-1"):
        TextDocument(text="", encoding="latin-1").encode("snowman ☃", "notes.txt")


def test_binary_sniff_looks_for_nul_bytes() -> None:
    assert looks_binary(b"\x89PNG\r\n\x1a\n\0\0")
    assert not looks_binary("plain text ☃".encode())


def test_atomic_write_creates_parents_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "c.txt"
    atomic_write(target, b"data", "a/b/c.txt")
    assert target.read_bytes() == b"data"
    assert os.listdir(target.parent) == ["c.txt"]


def test_atomic_write_keeps_the_mode_bits(tmp_path: Path) -> None:
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o750)
    atomic_write(script, b"#!/bin/sh\necho hi\n", "run.sh")
    assert stat.S_IMODE(script.stat().st_mode) == 0o750


def test_atomic_write_gives_a_new_file_the_umask_mode(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        atomic_write(tmp_path / "new.txt", b"x", "new.txt")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o644


def test_atomic_write_failure_names_the_path(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(ToolError, match="cannot write file/child.txt"):
        atomic_write(tmp_path / "file" / "child.txt", b"x", "file/child.txt")


def test_unchanged_check_refuses_a_file_changed_since_it_was_read(ctx: ToolContext, root: Path) -> None:
    path = root / "a.txt"
    path.write_text("one\n")
    ctx.remember(path)
    ensure_unchanged_since_known(ctx, path, "a.txt")
    path.write_text("changed by someone else\n")
    with pytest.raises(ToolError, match="a.txt changed on disk since it was last read.*read it again"):
        ensure_unchanged_since_known(ctx, path, "a.txt")


def test_unchanged_check_ignores_files_the_session_never_saw(ctx: ToolContext, root: Path) -> None:
    path = root / "a.txt"
    path.write_text("one\n")
    ensure_unchanged_since_known(ctx, path, "a.txt")
    path.write_text("changed by someone else, longer\n")
    assert ensure_unchanged_since_known(ctx, path, "a.txt") is None  # not refused: the session never read it
    assert path not in ctx.known_files  # and checking does not start tracking it
    ctx.remember(path)
    path.write_text("changed once more\n")
    with pytest.raises(ToolError, match="changed on disk"):
        ensure_unchanged_since_known(ctx, path, "a.txt")
