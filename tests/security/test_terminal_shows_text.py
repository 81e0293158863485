"""SPEC 25 through the real ``coder-tui``: what a model, a repository's file or a file name holds reaches the
terminal as text. Each test asserts the bytes the program wrote (to a pty for the full screen, to stdout and
stderr in headless mode), never a widget.

The hostile text mixes the classes of the corpus (tests/security/data/terminal_text.tsv): OSC 52 (the clipboard),
OSC 8 (a link), a title, DCS, APC, 8-bit CSI and OSC (C1, sent as UTF-8), a bidi override, carriage return and
backspace overstrikes; the answer streams one character a delta, so every sequence is cut across chunks.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.pty_app import REPO, PtyApp
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07"
HOSTILE = (
    f"{CLIPBOARD}\x1b]8;;http://evil.example/\x1b\\link\x1b]8;;\x1b\\\x1b]0;title\x07\x1bP+q544e\x1b\\"
    "\x1b_Gf=100\x1b\\\x9b2J\x9d52;c;eA==\x9c\u202eoverride\u202c\r over\b\bstrike"
)
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
# A file name may hold any byte but / and NUL.
EVIL_NAME = f"evil{CLIPBOARD}name.txt"


def obeyed_in_text_output(data: bytes) -> list[str]:
    """What a terminal would obey in output that should hold no sequence at all (headless text mode)."""
    shown = data.decode("utf-8")  # a raw C1 byte is not UTF-8: it would fail here
    return [
        char for char in shown
        if (ord(char) < 0x20 and char not in "\n\t") or 0x7F <= ord(char) <= 0x9F
        or char in BIDI
    ]


def obeyed_in_screen_output(data: bytes) -> list[bytes]:
    """What outside text could have added to a full screen's output: Textual itself writes CSI, ``\\r`` and
    OSC 22 (the pointer's shape), never another OSC, DCS, APC, PM, SOS, C1 or bidi control."""
    data.decode("utf-8")  # no raw C1 byte
    found = [match.group() for match in re.finditer(rb"\x1b(?:\](?!22;)|[P_^X])|\xc2[\x80-\x9f]", data)]
    found += [char.encode() for char in BIDI if char.encode() in data]
    return found


def run_headless(workspace: Path, server: ScriptedServer, *args: str) -> subprocess.CompletedProcess[bytes]:
    home = workspace.parent / "home"
    home.mkdir(exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
        "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-test", "PYTHONPATH": str(REPO), "LANG": "C.UTF-8",
    }
    return subprocess.run(
        [sys.executable, "-m", "coder_tui", "--cwd", str(workspace), *args],
        input=b"", capture_output=True, env=env, timeout=120, check=False,
    )


def hostile_workspace(root: Path) -> Path:
    workspace = root / "ws"
    workspace.mkdir()
    (workspace / "README.md").write_text(f"# read me\n{HOSTILE}\nEND-OF-FILE\n")
    (workspace / EVIL_NAME).write_text("x\n")
    return workspace


def test_headless_text_mode_prints_an_answer_split_across_chunks_as_text(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    workspace = hostile_workspace(tmp_path)
    scripted_server.add(
        reply(text(f"ANSWER {HOSTILE} END", chunk=1), tool_call("bash", command=f"echo '{CLIPBOARD}'")),
        reply(text(f"second {HOSTILE}", chunk=3)),
    )
    done = run_headless(workspace, scripted_server, "--mode", "yolo", "-p", "go")
    assert done.returncode == 0, done.stderr
    assert obeyed_in_text_output(done.stdout) == []
    assert obeyed_in_text_output(done.stderr) == []
    assert b"ANSWER " in done.stdout and b"override" in done.stdout and b"second" in done.stdout
    assert "␍ over␈␈strike".encode() in done.stdout  # the overstrikes are shown, not obeyed
    assert b"[bash] echo" in done.stderr  # the tool's argument, its sequence removed


def test_headless_text_mode_prints_a_cat_and_a_listing_of_hostile_files_as_text(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    workspace = hostile_workspace(tmp_path)
    shown = run_headless(workspace, scripted_server, "-p", "!cat README.md; ls")
    assert obeyed_in_text_output(shown.stdout) == []
    assert obeyed_in_text_output(shown.stderr) == []
    assert b"END-OF-FILE" in shown.stdout and b"evilname.txt" in shown.stdout


def test_headless_json_mode_escapes_as_json_does_and_keeps_the_data(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    workspace = hostile_workspace(tmp_path)
    scripted_server.add(text(HOSTILE, chunk=2))
    done = run_headless(workspace, scripted_server, "--output-format", "json", "-p", "go")
    assert done.returncode == 0, done.stderr
    assert obeyed_in_text_output(done.stdout) == []
    lines = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert "".join(line.get("text", "") for line in lines if line["type"] == "TextDelta") == HOSTILE
    assert lines[-1]["text"] == HOSTILE


def test_the_full_screen_draws_answers_files_and_file_names_as_text(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    workspace = hostile_workspace(tmp_path)
    scripted_server.add(
        reply(text(f"ANSWER {HOSTILE} END", chunk=1)),
        reply(tool_call("read", path="README.md"), tool_call("list", path=".")),
        text("READ-DONE"),
    )
    with PtyApp(workspace, scripted_server.base_url, tmp_path / "home", size=(120, 40)) as app:
        app.wait_shown("scripted-model")
        app.type("go\r")
        app.wait_shown("override")
        app.type("look\r")
        app.wait_shown("READ-DONE")
        app.type("!cat README.md; ls\r")
        app.wait_shown("evilname.txt")
        written = bytes(app.written)
    assert obeyed_in_screen_output(written) == []
    assert "␍".encode() in written and "<U+202E>".encode() in written
    assert len(scripted_server.requests) == 3


def test_the_full_screen_draws_a_hostile_paste_and_file_name_completion_as_text(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    workspace = hostile_workspace(tmp_path)
    with PtyApp(workspace, scripted_server.base_url, tmp_path / "home", size=(120, 40)) as app:
        app.wait_shown("scripted-model")
        app.type(f"\x1b[200~PASTED {HOSTILE} END\x1b[201~")  # a bracketed paste, as a terminal sends one
        app.wait_shown("PASTED")
        app.type(" @evil\t")
        app.wait_shown("@evilname.txt")
        written = bytes(app.written)
    assert obeyed_in_screen_output(written) == []
    assert "<U+202E>override".encode() in written and "␈".encode() in written  # shown, not obeyed
