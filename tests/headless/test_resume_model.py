"""Issue 13 item 5, headless: ``--continue`` keeps the model named by CODER_MODEL or ``--model``, not the one the
resumed session stored, and the request goes out with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.scenario import text
from tests.support.scripted_server import ScriptedServer
from tests.headless.test_headless_cli import run_cli


@pytest.mark.parametrize(
    ("extra_env", "args"),
    [({"CODER_MODEL": "fake-model"}, []), ({}, ["--model", "fake-model"])],
    ids=["CODER_MODEL", "--model"],
)
def test_continue_keeps_the_model_set_by_flag_or_environment(
    tmp_path: Path, scripted_server: ScriptedServer, extra_env: dict[str, str], args: list[str]
) -> None:
    scripted_server.add(text("first"), text("second"))
    first = run_cli(["-p", "hello"], tmp_path, scripted_server, extra_env={"CODER_MODEL": "gpt-4o-mini"})
    assert first.returncode == 0, first.stderr
    assert scripted_server.requests[0].body["model"] == "gpt-4o-mini"
    again = run_cli(["--continue", *args, "-p", "go on"], tmp_path, scripted_server, extra_env=extra_env)
    assert again.returncode == 0, again.stderr
    assert scripted_server.requests[-1].body["model"] == "fake-model"
