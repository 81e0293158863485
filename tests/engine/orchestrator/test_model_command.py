"""Issue 29 item 6: ``/model NAME`` says where it saved the model and what wins over it at the next launch."""

from __future__ import annotations

from pathlib import Path

from engine.settings_results import ModelSwitched
from engine.orchestrator.orchestrator import Orchestrator
from tests.support.fakes import CREATED, EventLog, FakeInteraction, make_config
from tests.support.scripted_server import ScriptedServer


def orchestrator(workspace: Path, server: ScriptedServer, env: dict[str, str]) -> tuple[Orchestrator, EventLog]:
    orch = Orchestrator(workspace=workspace, config=make_config(server.base_url), interaction=FakeInteraction(),
                        env={"OPENAI_API_KEY": "sk-test-key", **env})
    CREATED.append(orch)
    log = EventLog()
    orch.subscribe(log)
    return orch, log


async def test_model_names_the_environment_variable_that_overrides_it(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    orch, log = orchestrator(tmp_path, scripted_server, {"CODER_MODEL": "env-model"})
    await orch.run_input("/model other-model")
    text = log.of(ModelSwitched)[-1].text
    assert f"saved in {tmp_path / '.coder' / 'config.json'}" in text
    assert "CODER_MODEL=env-model" in text and "wins over the saved model at the next launch" in text


async def test_no_warning_without_an_override(tmp_path: Path, scripted_server: ScriptedServer) -> None:
    orch, log = orchestrator(tmp_path, scripted_server, {})
    await orch.run_input("/model other-model")
    assert "CODER_MODEL" not in log.of(ModelSwitched)[-1].text
