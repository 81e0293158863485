"""One entry of a resumed session's whole history, as ``HistoryRestored`` carries it to a front end (inside its JSON
text, so it is not a protocol type of its own)."""

from __future__ import annotations

from typing import Any, Literal

from engine.record import record


@record
class RestoredEntry:
    """One entry of a resumed session's whole history. ``kind == "message"``: ``record`` is the message in OpenAI
    form (``Message.to_record()``) and ``diff`` what a tool message showed. ``kind == "compacted"``: context
    compacted here; ``record`` is the summary the model saw from then on, with the tokens before and after."""

    kind: Literal["message", "compacted"]
    record: dict[str, Any]
    diff: str | None = None
    tokens_before: int = 0
    tokens_after: int = 0
