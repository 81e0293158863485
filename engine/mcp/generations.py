"""The two protocol generations a server may speak (SPEC 22). On 2026-07-28 a server asks the client for sampling,
a form or the roots by returning an input-required result that the client answers and sends the call again with;
a server written for the older protocol sends a request of its own in the middle of the call, which a 2026-07-28
connection has no channel for. The SDK refuses that request with an invalid-request error naming it: such a server
is spoken to with the initialize handshake instead (``ServerConnection``)."""

from __future__ import annotations


def refused_back_channel(error: BaseException | None) -> str | None:
    """The method a server was refused to ask the client on a connection without a back channel (the SDK's
    ``NoBackChannelError``, an invalid-request error naming it), when ``error`` is that refusal."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_REQUEST

    if not isinstance(error, MCPError) or error.code != INVALID_REQUEST or "back-channel" not in error.message:
        return None
    for method in ("sampling/createMessage", "elicitation/create", "roots/list"):
        if method in error.message:
            return method
    return None
