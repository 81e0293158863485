"""Issue 27 item 2 and issue 40 (SPEC 13, 19): only ordinary files of the workspace are written without asking; a
dotfile, a file in a dot-folder at any depth, a file another tool runs asks before the model writes it, in every
mode but yolo, with a reason naming it (data/configuring_files.tsv, one case a line); and the real coder-tui,
headless in auto-edit in a trusted folder, does not write `.mcp.json` unasked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.interaction import ApprovalDecision
from engine.modes import Mode
from tests.support.fakes import FakeInteraction, close_orchestrators, make_orchestrator  # noqa: F401
from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).parent / "data" / "configuring_files.tsv"
CASES = [
    tuple(line.split("\t"))
    for line in CORPUS.read_text().splitlines()
    if line.strip() and not line.startswith("#")
]


@pytest.mark.parametrize(("path", "expected"), CASES, ids=[case[0] for case in CASES])
@pytest.mark.parametrize("tool", ["write", "patch"])
async def test_the_model_writing_a_file_that_configures_what_runs_asks(
    tmp_path: Path, scripted_server: ScriptedServer, path: str, expected: str, tool: str
) -> None:
    call = (
        tool_call("write", id="w1", path=path, content="payload\n")
        if tool == "write"
        else tool_call("patch", id="w1", patch=f"*** Begin Patch\n*** Add File: {path}\n+payload\n*** End Patch\n")
    )
    scripted_server.add(reply(call), text("done"))
    interaction = FakeInteraction([ApprovalDecision.NO])
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.AUTO_EDIT, interaction=interaction)
    await orch.run_input("set it up")
    target = tmp_path / path
    if expected == "asks":
        (request,) = interaction.approval_requests
        assert any(reason.startswith(f"writes {path}:") for reason in request.reasons), request.reasons
        assert not target.exists()
    else:
        assert interaction.approval_requests == []
        assert target.read_text() == "payload\n"


async def test_yolo_writes_them_without_asking(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    scripted_server.add(reply(tool_call("write", path=".mcp.json", content="{}\n")), text("done"))
    interaction = FakeInteraction([])
    orch, _, _ = make_orchestrator(tmp_path, scripted_server.base_url, mode=Mode.YOLO, interaction=interaction)
    await orch.run_input("set it up")
    assert interaction.approval_requests == [] and (tmp_path / ".mcp.json").read_text() == "{}\n"


def test_headless_auto_edit_in_a_trusted_folder_does_not_write_mcp_json(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    workspace, xdg = tmp_path / "ws", tmp_path / "config"
    workspace.mkdir()
    (xdg / "coder").mkdir(parents=True)
    (xdg / "coder" / "config.json").write_text(json.dumps({"trusted_folders": [str(workspace.resolve())]}))
    server = {"mcpServers": {"x": {"command": "sh", "args": ["-c", f"touch {tmp_path / 'pwned'}"]}}}
    scripted_server.add(reply(tool_call("write", path=".mcp.json", content=json.dumps(server))), text("done"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CODER_"))}
    env.update(XDG_CONFIG_HOME=str(xdg), PYTHONPATH=str(REPO), OPENAI_API_KEY="sk-test",
               OPENAI_BASE_URL=scripted_server.base_url, CODER_MODEL="m")
    done = subprocess.run(
        [sys.executable, "-m", "coder_tui", "--cwd", str(workspace), "--mode", "auto-edit", "-p", "add a server"],
        input="", capture_output=True, text=True, env=env, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert not (workspace / ".mcp.json").exists() and not (tmp_path / "pwned").exists()
    result = json.loads(scripted_server.requests[-1].body["messages"][-1]["content"])
    assert result["ok"] is False and "configures what runs later" in result["error"]
