"""The tools a session offers and the OpenAI ``tools`` array they become (SPEC 5, SPEC 12: replayable requests)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.tools.base import ToolKind
from engine.tools.registry import ToolRegistry, core_tools


def _walk(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, dict):
        return [node] + [found for value in node.values() for found in _walk(value)]
    if isinstance(node, list):
        return [found for value in node for found in _walk(value)]
    return []


def test_core_tools_come_in_a_stable_order() -> None:
    assert [tool.name for tool in core_tools()] == ["read", "list", "glob", "grep", "write", "edit", "patch", "bash", "todoread", "todowrite"]


def test_core_tools_have_the_kinds_of_the_mode_matrix() -> None:
    kinds = {tool.name: tool.kind for tool in core_tools()}
    assert kinds == {
        "read": ToolKind.READ,
        "list": ToolKind.READ,
        "glob": ToolKind.READ,
        "grep": ToolKind.READ,
        "write": ToolKind.EDIT,
        "edit": ToolKind.EDIT,
        "patch": ToolKind.EDIT,
        "bash": ToolKind.EXECUTE,
        "todoread": ToolKind.READ,
        "todowrite": ToolKind.READ,
    }


def test_registry_wire_is_the_openai_tools_array() -> None:
    wire = ToolRegistry(core_tools()).wire()
    json.dumps(wire)
    assert [entry["type"] for entry in wire] == ["function"] * len(core_tools())
    read = wire[0]["function"]
    assert read["name"] == "read"
    assert read["parameters"]["type"] == "object"
    assert read["parameters"]["required"] == ["path"]


@pytest.mark.parametrize("tool", core_tools(), ids=lambda tool: tool.name)
def test_every_parameter_is_described_for_the_model(tool: Any) -> None:
    parameters = tool.definition().parameters
    # todoread() takes no argument (SPEC 5); every other tool has at least one.
    assert parameters["properties"] or tool.name == "todoread"
    assert parameters["type"] == "object"
    assert all(spec.get("description") for spec in parameters["properties"].values())
    assert not any(isinstance(node.get("title"), str) for node in _walk(parameters))
    assert len(tool.description) > 100


def test_registry_get_and_names() -> None:
    registry = ToolRegistry(core_tools())
    assert registry.names() == ["read", "list", "glob", "grep", "write", "edit", "patch", "bash", "todoread", "todowrite"]
    assert registry.get("grep") is not None and registry.get("grep").name == "grep"
    assert registry.get("nope") is None
    assert [definition.name for definition in registry.definitions()] == registry.names()


def test_registry_refuses_two_tools_with_one_name() -> None:
    registry = ToolRegistry(core_tools())
    with pytest.raises(ValueError, match="'read' is already registered"):
        registry.register(core_tools()[0])
