"""SPEC 15: headless ``--output-format json`` carries a running command's output as it comes (``ToolCallOutput``
lines, in order, before the call's ``ToolCallFinished``)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.headless.test_headless_cli import run_cli
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer


def test_json_lines_carry_the_output_before_the_result(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("bash", id="b1", command="echo one; echo warn >&2; sleep 0.3; echo two")),
                        text("Ran."))
    done = run_cli(["-p", "run it", "--mode", "yolo", "--output-format", "json"], tmp_path, scripted_server)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [line["type"] for line in lines]
    outputs = [line for line in lines if line["type"] == "ToolCallOutput"]
    assert {line["call_id"] for line in outputs} == {"b1"}
    assert "".join(line["text"] for line in outputs if line["stream"] == "stdout") == "one\ntwo\n"
    assert "".join(line["text"] for line in outputs if line["stream"] == "stderr") == "warn\n"
    assert kinds.index("ToolCallExecuting") < kinds.index("ToolCallOutput") < kinds.index("ToolCallFinished")
    assert max(i for i, kind in enumerate(kinds) if kind == "ToolCallOutput") < kinds.index("ToolCallFinished")
