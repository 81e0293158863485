"""A deliberately misbehaving MCP server for the tests, on the SDK's ``MCPServer`` (FastMCP in SDK 1.x).

``python -m tests.engine.mcp.broken_server [MODE] [--http PORT | --sse PORT]``:

- ``crash``: exits with an error before answering anything;
- ``hang``: never answers the handshake;
- ``serve`` (default): tools ``echo``, ``fail`` (an ``isError`` result), ``hang`` (never returns; writes
  ``started`` to ``$BROKEN_MARK`` when it begins, ``cancelled`` when it is cancelled), ``picture`` (an image),
  ``grow`` (adds the tool ``extra`` and sends ``tools/list_changed``), ``die`` (the process exits mid-call), the
  prompt ``review`` and the resource ``note://readme``.
"""

from __future__ import annotations

import anyio
import base64
import os
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.utilities.types import Image
from mcp_types import ToolAnnotations

# A 1x1 transparent PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def build() -> MCPServer:
    server = MCPServer("broken")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def echo(text: str) -> str:
        """Returns the text it is given."""
        print(f"echo called with {text!r}", file=sys.stderr, flush=True)
        return f"echo: {text}"

    @server.tool()
    def fail(reason: str = "it broke") -> str:
        """Always fails."""
        raise ValueError(reason)

    @server.tool()
    async def hang() -> str:
        """Never returns."""
        mark = os.environ.get("BROKEN_MARK")
        if mark:
            with open(mark, "w") as handle:
                handle.write("started")
        try:
            await anyio.sleep_forever()
        finally:
            if mark:
                with open(mark, "w") as handle:
                    handle.write("cancelled")
        return "unreachable"

    @server.tool()
    def picture() -> Image:
        """Returns a small image."""
        return Image(data=PNG, format="png")

    @server.tool()
    async def grow(ctx: Context) -> str:
        """Adds the tool `extra` and tells the client."""

        def extra() -> str:
            """A tool that appeared later."""
            return "extra"

        server.add_tool(extra)
        await ctx.notify_tools_changed()
        if ctx.session is not None:
            await ctx.session.send_tool_list_changed()
        return "grown"

    @server.tool()
    def die() -> str:
        """Exits the server process."""
        os._exit(3)

    @server.resource("note://readme", mime_type="text/plain")
    def readme() -> str:
        """The project's notes."""
        return "Remember: the build needs Python 3.11."

    @server.prompt()
    def review(path: str, focus: str = "bugs") -> str:
        """Review a file."""
        return f"Please review {path}, looking for {focus}."

    return server


def main(argv: list[str]) -> None:
    mode = argv[0] if argv and not argv[0].startswith("--") else "serve"
    if mode == "crash":
        print("broken server: crashing on purpose", file=sys.stderr, flush=True)
        sys.exit(2)
    if mode == "hang":
        anyio.run(anyio.sleep_forever)
    server = build()
    if "--http" in argv:
        port = int(argv[argv.index("--http") + 1])
        server.run("streamable-http", host="127.0.0.1", port=port)
    elif "--sse" in argv:
        port = int(argv[argv.index("--sse") + 1])
        server.run("sse", host="127.0.0.1", port=port)
    else:
        server.run("stdio")


if __name__ == "__main__":
    main(sys.argv[1:])
