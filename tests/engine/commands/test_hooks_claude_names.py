"""SPEC 23: hooks written for Claude Code work unchanged: ``tool_input`` carries Claude Code's names beside the
tool's own (``file_path``, absolute, beside ``path``; ``old_string``/``new_string``; ``command``). The hooks here
are the shell one-liners people copy, reading the payload with ``jq`` (issue 29 item 5)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.modes import Mode
from tests.engine.commands.test_hooks import hook, trust
from tests.support.fakes import make_orchestrator
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

pytestmark = pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not installed (apt-get install jq)")

# A formatter hook as written for Claude Code: it rewrites the file the call wrote, named by .tool_input.file_path.
FORMATTER = "f=$(jq -r .tool_input.file_path) && tr a-z A-Z < \"$f\" > \"$f.tmp\" && mv \"$f.tmp\" \"$f\""


async def test_a_claude_code_formatter_hook_formats_the_written_file(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    trust(tmp_path)
    (tmp_path / "src").mkdir()
    scripted_server.add(reply(tool_call("write", path="src/notes.txt", content="shout me\n")), reply(text("Done.")))
    orch, _, _ = make_orchestrator(
        tmp_path, scripted_server.base_url, mode=Mode.YOLO, hooks={"PostToolUse": hook(FORMATTER, "Write|Edit")}
    )
    await orch.run_input("write the notes")
    assert (tmp_path / "src" / "notes.txt").read_text() == "SHOUT ME\n"


async def test_every_claude_code_name_reaches_the_hook(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    trust(tmp_path)
    (tmp_path / "app.py").write_text("x = 1\n")
    saw = tmp_path.parent / "saw.txt"
    logger = f"jq -r '[.tool_name, .tool_input.file_path, .tool_input.old_string, .tool_input.new_string, .tool_input.command] | map(. // \"-\") | join(\"|\")' >> {saw}"
    scripted_server.add(
        reply(tool_call("read", path="app.py")),
        reply(tool_call("edit", path="app.py", old_string="x = 1", new_string="x = 2")),
        reply(tool_call("bash", command="true")),
        reply(text("Done.")),
    )
    orch, _, _ = make_orchestrator(
        tmp_path, scripted_server.base_url, mode=Mode.YOLO, hooks={"PreToolUse": hook(logger)}
    )
    await orch.run_input("change x")
    app = str((tmp_path / "app.py"))
    assert saw.read_text().splitlines() == [
        f"read|{app}|-|-|-",
        f"edit|{app}|x = 1|x = 2|-",
        "bash|-|-|-|true",
    ]
