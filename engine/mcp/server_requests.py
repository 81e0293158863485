"""What an MCP server may ask of this client (SPEC 22), as the SDK's ``Client`` callbacks for one connection:
sampling (the session's model answers, after the user approves), elicitation (a form the user fills in), roots
(the workspace), and log messages (into the server's log file).

The connection hands the requests to a ``ServerRequestHandler`` the orchestrator provides
(``engine.orchestrator.mcp_wiring``), so the same answer comes from the full screen, headless and ACP. A handler
failure is answered as an MCP error, never raised into the SDK.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

log = logging.getLogger(__name__)

# MCP's code for "the user rejected the request" (sampling, elicitation).
USER_REJECTED = -1
INTERNAL_ERROR = -32603


class ServerRequestHandler(Protocol):
    async def sample(self, server: str, params: Any) -> Any:
        """A ``CreateMessageResult``, or an ``ErrorData`` (refused, or the model failed)."""
        ...

    async def elicit(self, server: str, params: Any) -> Any:
        """An ``ElicitResult`` (accept with content, decline, cancel)."""
        ...


def client_callbacks(
    server: str, handler: ServerRequestHandler | None, workspace: Path, write_log: Callable[[str], None]
) -> dict[str, Any]:
    """The ``Client`` keyword arguments that answer a server's requests; without a handler only roots and
    logging (a server's sampling and elicitation tools then say the client does not support them)."""
    from mcp_types import ErrorData, ListRootsResult, Root

    async def roots(context: Any) -> Any:
        return ListRootsResult(roots=[Root(uri=workspace.as_uri(), name=workspace.name)])

    async def logging_message(params: Any) -> None:
        data = params.data if isinstance(params.data, str) else json.dumps(params.data, ensure_ascii=False)
        where = f" {params.logger}" if params.logger else ""
        write_log(f"[{params.level}{where}] {data}")

    callbacks: dict[str, Any] = {"list_roots_callback": roots, "logging_callback": logging_message}
    if handler is None:
        return callbacks

    async def sampling(context: Any, params: Any) -> Any:
        try:
            return await handler.sample(server, params)
        except Exception as exc:  # noqa: BLE001 - the server gets an error, the session goes on
            log.exception("sampling for %s failed", server)
            return ErrorData(code=INTERNAL_ERROR, message=f"sampling failed: {type(exc).__name__}: {exc}")

    async def elicitation(context: Any, params: Any) -> Any:
        try:
            return await handler.elicit(server, params)
        except Exception as exc:  # noqa: BLE001
            log.exception("elicitation for %s failed", server)
            return ErrorData(code=INTERNAL_ERROR, message=f"elicitation failed: {type(exc).__name__}: {exc}")

    callbacks["sampling_callback"] = sampling
    callbacks["elicitation_callback"] = elicitation
    return callbacks
