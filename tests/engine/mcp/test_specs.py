"""Which servers start: mcp_servers in the config, a trusted project's .mcp.json, ${VAR} expansion."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.config import Config, load_config
from engine.mcp.specs import MissingVariable, expand, expand_all, server_specs


def config(**servers: dict) -> Config:
    return Config.model_validate({"mcp_servers": servers})


def test_stdio_and_http_servers_from_config(tmp_path: Path) -> None:
    cfg = config(
        git={"command": "mcp-server-git", "args": ["--repository", "."], "env": {"A": "1"}, "cwd": "sub"},
        web={"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
        old={"type": "sse", "url": "http://127.0.0.1:9/sse"},
        off={"command": "x", "enabled": False},
    )
    specs, problems = server_specs(cfg, tmp_path, project_trusted=False)
    assert problems == []
    assert [(s.name, s.transport) for s in specs] == [("git", "stdio"), ("web", "http"), ("old", "sse")]
    assert specs[0].target == "mcp-server-git --repository ."


def test_server_needs_exactly_one_of_command_and_url() -> None:
    with pytest.raises(ValueError, match="either `command`"):
        config(bad={"command": "x", "url": "http://h/"})
    with pytest.raises(ValueError, match="either `command`"):
        config(bad={"args": ["x"]})
    with pytest.raises(ValueError, match="does not fit"):
        config(bad={"type": "sse", "command": "x"})


def test_bad_server_in_config_file_is_reported_and_the_rest_loads(tmp_path: Path, user_config: Path) -> None:
    user_config.joinpath("coder").mkdir(parents=True)
    user_config.joinpath("coder", "config.json").write_text(
        json.dumps({"mcp_servers": {"good": {"command": "a"}, "bad": {"command": "b", "colour": "red"}}})
    )
    loaded = load_config(tmp_path)
    assert list(loaded.config.mcp_servers) == ["good"]
    assert any("mcp_servers.bad" in str(issue) for issue in loaded.issues)


def write_mcp_json(workspace: Path, servers: object) -> None:
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))


def test_mcp_json_read_only_in_a_trusted_project(tmp_path: Path) -> None:
    write_mcp_json(tmp_path, {"time": {"type": "stdio", "command": "mcp-server-time", "args": [], "env": {}}})
    assert server_specs(Config(), tmp_path, project_trusted=False)[0] == []
    specs, problems = server_specs(Config(), tmp_path, project_trusted=True)
    assert [(s.name, s.source) for s in specs] == [("time", str(tmp_path / ".mcp.json"))] and problems == []


def test_config_entry_wins_over_mcp_json(tmp_path: Path) -> None:
    write_mcp_json(tmp_path, {"time": {"command": "from-mcp-json"}})
    specs, _ = server_specs(config(time={"command": "from-config"}), tmp_path, project_trusted=True)
    assert [s.config.command for s in specs] == ["from-config"]


def test_broken_mcp_json_entries_are_named_and_skipped(tmp_path: Path) -> None:
    write_mcp_json(tmp_path, {"ok": {"command": "a"}, "bad": {"command": "a", "url": "http://x/"}, "odd": {"x": 1}})
    specs, problems = server_specs(Config(), tmp_path, project_trusted=True)
    assert [s.name for s in specs] == ["ok"]
    assert len(problems) == 2 and all(".mcp.json: mcpServers." in p for p in problems)
    (tmp_path / ".mcp.json").write_text("{not json")
    specs, problems = server_specs(Config(), tmp_path, project_trusted=True)
    assert specs == [] and "invalid JSON" in problems[0]


def test_variables_are_expanded_from_the_environment() -> None:
    env = {"TOKEN": "s3cret"}
    assert expand("Bearer ${TOKEN}", env) == "Bearer s3cret"
    assert expand("${MISSING:-fallback}", env) == "fallback"
    assert expand_all({"A": "x${TOKEN}y"}, env) == {"A": "xs3crety"}
    with pytest.raises(MissingVariable, match="MISSING"):
        expand("${MISSING}", env)
