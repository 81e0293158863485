"""SPEC 17: layered configuration, validated, with errors that name the file and the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.config import load_config


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config_home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home))
    return config_home


def write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_defaults_when_no_file(tmp_path: Path, home: Path) -> None:
    loaded = load_config(tmp_path, env={})
    assert loaded.issues == []
    assert loaded.config.max_steps == 50
    assert loaded.config.permissions.preset == "balanced"


def test_project_file_overrides_user_file_over_defaults(tmp_path: Path, home: Path) -> None:
    write(home / "coder" / "config.json", {"model": "user-model", "max_steps": 7, "workflow": {"max_verify_attempts": 4}})
    write(tmp_path / ".coder" / "config.json", {"model": "project-model", "workflow": {"verify_commands": ["pytest -q"]}})
    config = load_config(tmp_path, env={}, trust=True).config
    assert config.model == "project-model"
    assert config.max_steps == 7
    # Sections merge key by key: the user's verify attempts survive the project's verify commands.
    assert config.workflow.max_verify_attempts == 4
    assert config.workflow.verify_commands == ["pytest -q"]


def test_environment_overrides_files(tmp_path: Path, home: Path) -> None:
    write(tmp_path / ".coder" / "config.json", {"model": "file-model", "provider": {"base_url": "http://file/v1"}})
    config = load_config(tmp_path, env={"CODER_MODEL": "env-model", "OPENAI_BASE_URL": "http://env/v1"}).config
    assert config.model == "env-model"
    assert config.provider.base_url == "http://env/v1"


def test_invalid_value_names_file_and_key_and_the_rest_loads(tmp_path: Path, home: Path) -> None:
    path = write(
        tmp_path / ".coder" / "config.json",
        {"model": "m", "max_steps": "many", "workflow": {"max_verify_attempts": -1, "auto_verify_after_edit": False}},
    )
    loaded = load_config(tmp_path, env={})
    assert loaded.config.model == "m"
    assert loaded.config.workflow.auto_verify_after_edit is False
    assert loaded.config.max_steps == 50
    assert loaded.config.workflow.max_verify_attempts == 2
    messages = [str(issue) for issue in loaded.issues]
    assert any(m.startswith(f"{path}: max_steps:") and '"many"' in m for m in messages)
    assert any(m.startswith(f"{path}: workflow.max_verify_attempts:") for m in messages)


def test_unknown_key_is_reported(tmp_path: Path, home: Path) -> None:
    write(tmp_path / ".coder" / "config.json", {"modle": "typo"})
    issues = load_config(tmp_path, env={}, trust=True).issues
    assert [(i.key, i.message) for i in issues] == [("modle", "unknown key")]
    untrusted = load_config(tmp_path, env={})
    assert untrusted.issues == [] and untrusted.ignored_untrusted == ("modle",)


def test_api_key_in_a_file_is_refused_with_a_hint(tmp_path: Path, home: Path) -> None:
    write(tmp_path / ".coder" / "config.json", {"provider": {"api_key": "sk-secret"}})
    loaded = load_config(tmp_path, env={}, trust=True)
    (issue,) = loaded.issues
    assert issue.key == "provider.api_key"
    assert "environment" in issue.message
    assert "sk-secret" not in str(issue)
    assert "sk-secret" not in loaded.config.model_dump_json()


def test_broken_json_names_the_file_and_position(tmp_path: Path, home: Path) -> None:
    path = write(tmp_path / ".coder" / "config.json", '{"model": "m",\n  oops}')
    loaded = load_config(tmp_path, env={})
    (issue,) = loaded.issues
    assert issue.source == str(path)
    assert "line 2" in issue.message
    assert loaded.config.model == "gpt-4o-mini"


def test_bad_permission_rule_drops_only_that_rule(tmp_path: Path, home: Path) -> None:
    write(
        tmp_path / ".coder" / "config.json",
        {"permissions": {"bash": {"git push *": "deny", "npm test*": "sometimes"}}},
    )
    loaded = load_config(tmp_path, env={}, trust=True)
    assert loaded.config.permissions.bash == {"git push *": "deny"}
    assert [i.key for i in loaded.issues] == ["permissions.bash.npm test*"]
