"""An MCP server's request for input as ACP ``elicitation/create`` (SPEC 24): a form with the server's requested
schema, or an address to open, scoped to the session."""

from __future__ import annotations

import uuid
from typing import Any

from acp.schema import ElicitationFormSessionMode, ElicitationSchema, ElicitationUrlSessionMode

from engine.interaction import ElicitationRequest


def elicitation_mode(session_id: str, request: ElicitationRequest) -> Any:
    if request.url:
        return ElicitationUrlSessionMode(
            session_id=session_id, elicitation_id=uuid.uuid4().hex, url=request.url
        )
    schema = ElicitationSchema.model_validate(request.schema)
    return ElicitationFormSessionMode(session_id=session_id, requested_schema=schema)
