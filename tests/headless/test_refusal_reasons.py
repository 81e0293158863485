"""Issue 43 item 1 headless: the refusal the model reads names, for each reason, the command that causes it."""

from __future__ import annotations

import json
from pathlib import Path

from tests.headless.test_headless_cli import run_cli
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

LINE = "rm -f blob.bin && echo changed > src/a.py && echo new > fresh.txt"


def test_headless_refusal_names_the_command_of_each_reason(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("a = 1\n")
    (tmp_path / "blob.bin").write_text("blob")
    scripted_server.add(reply(tool_call("bash", command=LINE)), text("I was not allowed."))
    done = run_cli(["-p", "clean up"], tmp_path, scripted_server)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "blob.bin").exists() and not (tmp_path / "fresh.txt").exists()
    (tool_message,) = [m for m in scripted_server.requests[1].body["messages"] if m["role"] == "tool"]
    error = json.loads(tool_message["content"])["error"]
    assert error.startswith(
        "this call needs the user's approval, which a non-interactive run cannot give ("
        "bash: `rm -f blob.bin` deletes files without confirmation (`rm -f`); "
        "bash: `echo changed > src/a.py` overwrites the existing file `src/a.py`; "
        "bash: `echo new > fresh.txt` writes to `fresh.txt`). "
    )
