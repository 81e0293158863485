"""A CallToolResult as the tool message: text, structured content, images described and given as images, isError, capped."""

from __future__ import annotations

import base64
import json

import pytest
from mcp_types import (
    AudioContent,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    TextContent,
    TextResourceContents,
)

from engine.errors import ToolError
from engine.mcp.results import result_data, result_images


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


def test_images_are_described_in_the_text_and_given_as_images() -> None:
    png = b"\x89PNG" + b"\0" * 96
    data = base64.b64encode(png).decode()
    result = CallToolResult(
        content=[ImageContent(type="image", data=data, mime_type="image/png")],
        # Servers mirror their content blocks here: the base64 must not reach the model as text that way either.
        structured_content={"content": [{"type": "image", "data": data, "mimeType": "image/png"}]},
    )
    sent = result_data(result, 30_000)
    assert sent["content"] == "[image: image/png, 100 bytes; attached after the tool results]"
    assert data[:40] not in json.dumps(sent)
    assert [(image.mime, image.data) for image in result_images(result.content)] == [("image/png", png)]


def test_audio_and_unknown_image_types_are_described_only() -> None:
    data = base64.b64encode(b"RIFF" + b"\0" * 60).decode()
    result = CallToolResult(content=[AudioContent(type="audio", data=data, mime_type="audio/wav"),
                                     ImageContent(type="image", data=data, mime_type="image/x-icon")])
    assert result_data(result, 30_000)["content"] == "[audio: audio/wav, 64 bytes]\n[image: image/x-icon, 64 bytes]"
    assert result_images(result.content) == []


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
