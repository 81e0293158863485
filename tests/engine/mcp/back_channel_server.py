"""An MCP server whose tools ask the client the way servers written before the 2026-07-28 protocol do: a request on
the session's back channel in the middle of the call (``ctx.session.create_message``, ``ctx.elicit``,
``ctx.session.list_roots``), for the tests of SPEC 22 against both protocol generations:
``python -m tests.engine.mcp.back_channel_server``.

The SDK refuses such a request on a 2026-07-28 connection (that protocol has no server-initiated requests), so these
tools only work on a connection made with the initialize handshake.
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import SamplingMessage, TextContent

from tests.engine.mcp.asking_server import Signup


def build() -> MCPServer:
    server = MCPServer("old-asking")

    @server.tool()
    async def summarize(text: str, ctx: Context) -> str:
        """Asks the client's model for a one-line summary of the text."""
        message = SamplingMessage(role="user", content=TextContent(type="text", text=f"Summarize: {text}"))
        answer = await ctx.session.create_message([message], max_tokens=50)
        content = answer.content
        said = content.text if isinstance(content, TextContent) else repr(content)
        return f"model {answer.model} said: {said}"

    @server.tool()
    async def signup(ctx: Context) -> str:
        """Asks the user to fill in a form."""
        answer = await ctx.elicit("Sign up for the service", Signup)
        if answer.action == "accept":
            return f"accepted: {answer.data.model_dump_json()}"
        return f"the user chose {answer.action}"

    @server.tool()
    async def where(ctx: Context) -> str:
        """The client's roots."""
        roots = await ctx.session.list_roots()
        return "roots: " + ", ".join(f"{root.name}={root.uri}" for root in roots.roots)

    return server


if __name__ == "__main__":
    build().run("stdio")
    sys.exit(0)
