"""A CallToolResult as the tool message: text, structured content, images described, isError, capped."""

from __future__ import annotations

import base64

import pytest
from mcp_types import CallToolResult, EmbeddedResource, ImageContent, TextContent, TextResourceContents

from engine.errors import ToolError
from engine.mcp.results import result_data


def text(value: str) -> TextContent:
    return TextContent(type="text", text=value)


def test_text_blocks_are_joined() -> None:
    result = CallToolResult(content=[text("one"), text("two")])
    assert result_data(result, 30_000) == {"content": "one\ntwo"}


def test_structured_content_kept_when_it_adds_something() -> None:
    result = CallToolResult(content=[text("3 files")], structured_content={"files": ["a", "b", "c"]})
    assert result_data(result, 30_000) == {"content": "3 files", "structured_content": {"files": ["a", "b", "c"]}}


def test_structured_content_dropped_when_it_repeats_the_text() -> None:
    result = CallToolResult(content=[text('{"a": 1}')], structured_content={"a": 1})
    assert result_data(result, 30_000) == {"content": '{"a": 1}'}
    wrapped = CallToolResult(content=[text("echo: hi")], structured_content={"result": "echo: hi"})
    assert result_data(wrapped, 30_000) == {"content": "echo: hi"}


def test_images_are_described_not_sent() -> None:
    data = base64.b64encode(b"\x89PNG" + b"\0" * 96).decode()
    result = CallToolResult(content=[ImageContent(type="image", data=data, mime_type="image/png")])
    assert result_data(result, 30_000) == {"content": "[image: image/png, 100 bytes]"}


def test_embedded_text_resource_is_inlined() -> None:
    resource = TextResourceContents(uri="file:///a.txt", text="hello")
    result = CallToolResult(content=[EmbeddedResource(type="resource", resource=resource)])
    assert result_data(result, 30_000)["content"] == "[resource file:///a.txt]\nhello"


def test_is_error_result_is_a_tool_error() -> None:
    with pytest.raises(ToolError, match="no such branch"):
        result_data(CallToolResult(content=[text("no such branch")], is_error=True), 30_000)


def test_large_results_are_capped_like_bash_output() -> None:
    result = CallToolResult(content=[text("x" * 50_000)])
    content = result_data(result, 2_000)["content"]
    assert len(content) < 2_100 and "bytes omitted" in content
