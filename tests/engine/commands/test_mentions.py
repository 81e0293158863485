"""SPEC 23 mentions: @folder/ attaches a listing; a mention that cannot be attached always says why; prose that
merely starts with @ is left alone; images are picked out for an image part."""

from __future__ import annotations

from pathlib import Path

from engine.context.mentions import collect_mentions
from engine.tools.guard import Workspace


def test_a_folder_mention_attaches_its_listing(tmp_path: Path) -> None:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "main.py").write_text("x")
    found = collect_mentions("look at @src/ please", Workspace(tmp_path))
    assert found.problems == []
    assert found.text.endswith('<folder path="src/" entries="2">\nmain.py\npkg/\n</folder>')


def test_an_empty_folder_says_so(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert "(empty folder)" in collect_mentions("@empty", Workspace(tmp_path)).text


def test_every_mention_that_cannot_be_attached_says_why(tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"\0\1\2")
    found = collect_mentions("see @missing/file.py @blob.bin @../outside.txt and @decorator", Workspace(tmp_path))
    assert found.text == "see @missing/file.py @blob.bin @../outside.txt and @decorator"
    assert found.problems[0] == "@missing/file.py not attached: no such file or folder in the workspace"
    assert found.problems[1].startswith("@blob.bin not attached: binary file")
    assert found.problems[2].startswith("@../outside.txt not attached:")
    assert len(found.problems) == 3  # @decorator is prose


def test_image_mentions_are_picked_out(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    found = collect_mentions("what is wrong in @shot.png?", Workspace(tmp_path))
    assert found.images == [(tmp_path / "shot.png").resolve()] and found.problems == []
    assert found.text == "what is wrong in @shot.png?"


def test_coder_state_is_never_attached(tmp_path: Path) -> None:
    (tmp_path / ".coder").mkdir()
    (tmp_path / ".coder" / "config.json").write_text("{}")
    (tmp_path / "a.txt").write_text("a")
    found = collect_mentions("@.coder/config.json and @./", Workspace(tmp_path))
    assert found.problems[0].startswith("@.coder/config.json not attached:")
    listing = found.text.split("<folder", 1)[1]
    assert ".coder/" not in listing and "a.txt" in listing
