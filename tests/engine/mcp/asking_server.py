"""An MCP server that asks things of its client, on the SDK's ``MCPServer``, for the tests of SPEC 22's back
channel: ``python -m tests.engine.mcp.asking_server``.

Tools: ``summarize`` (sampling: asks the client's model to summarize its ``text``), ``signup`` (elicitation: a form
of name, age, plan and newsletter), ``where`` (lists the client's roots),
``count`` (reports progress three times), ``chatty`` (sends log messages at several levels).
"""

from __future__ import annotations

import sys
from typing import Annotated, Literal


from mcp.server.elicitation import ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp_types import CreateMessageResult, ListRootsResult, SamplingMessage, TextContent
from pydantic import BaseModel, Field


class Signup(BaseModel):
    name: str = Field(description="your name")
    age: int = Field(ge=0, le=150, description="in years")
    plan: Literal["free", "pro"] = "free"
    newsletter: bool = False


# Resolvers: the SDK asks the client mid-call on a 2025 connection, and through an input-required result on a
# 2026-07-28 one; the tools work the same either way.
def ask_model(text: str) -> Sample:
    message = SamplingMessage(role="user", content=TextContent(type="text", text=f"Summarize: {text}"))
    return Sample([message], max_tokens=50, system_prompt="You write one-line summaries.")


def ask_user() -> Elicit[Signup]:
    return Elicit("Sign up for the service", Signup)


def ask_roots() -> ListRoots:
    return ListRoots()


def build() -> MCPServer:
    server = MCPServer("asking")

    @server.tool()
    async def summarize(text: str, answer: Annotated[CreateMessageResult, Resolve(ask_model)]) -> str:
        """Asks the client's model for a one-line summary of the text."""
        content = answer.content
        said = content.text if isinstance(content, TextContent) else repr(content)
        return f"model {answer.model} said: {said}"

    @server.tool()
    async def signup(answer: Annotated[ElicitationResult[Signup], Resolve(ask_user)]) -> str:
        """Asks the user to fill in a form."""
        if answer.action == "accept":
            return f"accepted: {answer.data.model_dump_json()}"
        return f"the user chose {answer.action}"

    @server.tool()
    async def where(roots: Annotated[ListRootsResult, Resolve(ask_roots)]) -> str:
        """The client's roots."""
        return "roots: " + ", ".join(f"{root.name}={root.uri}" for root in roots.roots)

    @server.tool()
    async def count(ctx: Context) -> str:
        """Counts to three, reporting progress."""
        for step in (1, 2, 3):
            await ctx.report_progress(step, 3, f"step {step}")
        return "counted"

    @server.tool()
    async def chatty(ctx: Context) -> str:
        """Logs a few lines."""
        await ctx.info("an info line from chatty")
        await ctx.warning("a warning line from chatty")
        return "logged"

    return server


if __name__ == "__main__":
    build().run("stdio")
    sys.exit(0)
