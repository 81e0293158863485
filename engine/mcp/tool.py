"""An MCP server's tool as one of the session's tools: ``mcp__<server>__<tool>`` with the server's input schema,
run by calling the server. Its kind puts it in the MCP rows of the mode matrix (read-only when annotated so)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from engine.errors import ToolError
from engine.events import Event, ToolProgress
from engine.mcp.results import result_data, result_images
from engine.messages import ImageRef, ToolDef
from engine.storage.sessions.blobs import BlobStore
from engine.tools.base import Tool, ToolContext, ToolKind, ToolOutput

if TYPE_CHECKING:
    from engine.mcp.connection import ProgressCallback, ServerConnection

_KEY_ARGUMENT_CHARS = 120
MIME_SUFFIXES = {"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp"}


class McpArguments(BaseModel):
    """Whatever object the model sends; the server validates it against its own schema."""

    model_config = ConfigDict(extra="allow")


class McpTool(Tool[McpArguments]):
    params = McpArguments

    def __init__(
        self, name: str, connection: ServerConnection, server_tool: Any, emit: Callable[[Event], None] | None = None
    ) -> None:
        """``emit`` hears the call's progress (``ToolProgress``), when the server reports any."""
        self.name = name  # type: ignore[misc]
        self._emit = emit
        self.connection = connection
        self.server_tool = server_tool
        annotations = server_tool.annotations
        read_only = annotations is not None and annotations.read_only_hint is True
        self.kind = ToolKind.MCP_READ_ONLY if read_only else ToolKind.MCP  # type: ignore[misc]
        title = f"(MCP server {connection.name}, tool {server_tool.name})"
        self.description = f"{(server_tool.description or '').strip()} {title}".strip()  # type: ignore[misc]

    def definition(self) -> ToolDef:
        schema = dict(self.server_tool.input_schema or {})
        schema.setdefault("type", "object")
        if schema["type"] == "object":
            schema.setdefault("properties", {})
        return ToolDef(name=self.name, description=self.description, parameters=schema)

    def key_argument(self, params: McpArguments) -> str:
        """The first required argument's value (else the first argument's), as the tool-event row shows it."""
        arguments = params.model_dump()
        required = [k for k in (self.server_tool.input_schema or {}).get("required", []) if k in arguments]
        key = required[0] if required else next(iter(arguments), None)
        if key is None:
            return ""
        value = arguments[key]
        text = value if isinstance(value, str) else repr(value)
        return text if len(text) <= _KEY_ARGUMENT_CHARS else text[: _KEY_ARGUMENT_CHARS - 1] + "…"

    async def preview(self, params: McpArguments, ctx: ToolContext) -> str | None:
        """Every argument, for the approval dialog: the key argument alone does not say all a call will do."""
        arguments = params.model_dump()
        return json.dumps(arguments, indent=2, ensure_ascii=False) if len(arguments) > 1 else None

    async def run(self, params: McpArguments, ctx: ToolContext) -> ToolOutput:
        result = await self.connection.call_tool(self.server_tool.name, params.model_dump(), self._progress(ctx))
        try:
            data = result_data(result, ctx.limits.output_cap_bytes)
            blobs = BlobStore.for_workspace(ctx.workspace.root)
            images = tuple(
                ImageRef(blob=str(blobs.put(image.data, MIME_SUFFIXES[image.mime])), mime=image.mime, name=self.name)
                for image in result_images(result.content)
            )
            return ToolOutput(data, images=images)
        except ToolError:
            raise
        except (AttributeError, TypeError, ValueError) as exc:
            raise ToolError(f"MCP server {self.connection.name} sent a result that cannot be read: {exc}") from exc
        except OSError as exc:
            raise ToolError(f"cannot keep the image {self.connection.name} returned: {exc.strerror or exc}") from exc

    def _progress(self, ctx: ToolContext) -> ProgressCallback | None:
        emit, call_id = self._emit, ctx.call_id
        if emit is None or call_id is None:
            return None

        async def progress(done: float, total: float | None, message: str | None) -> None:
            emit(ToolProgress(call_id, self.name, done, total, message))

        return progress
