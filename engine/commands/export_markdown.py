"""The transcript of a session as Markdown (``/export``): user requests, answers, reasoning, every tool call with
its arguments and result and the diff it showed, across every context epoch, with a marker where the context was
compacted."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from engine.storage.records import CompactionMarker, HistoryEntry

# A tool result longer than this is cut in the export (the session file keeps all of it).
MAX_RESULT_CHARS = 4000


def render_markdown(title: str, session_id: str, history: Sequence[HistoryEntry]) -> str:
    """The session's whole history (every context epoch): a "context compacted here" marker where each compaction
    happened, the diff each tool message showed, and messages a ``/rewind`` cut marked as such."""
    out = [f"# {title or 'Untitled session'}", "", f"Session `{session_id}`, exported from coder-tui.", ""]
    calls: dict[str, str] = {}
    for entry in history:
        if isinstance(entry, CompactionMarker):
            out += _marker(entry)
            continue
        message = entry.message
        if message.role == "system":
            continue
        if entry.rewound:
            out += ["*(cut from the conversation by /rewind)*", ""]
        if message.role == "user":
            out += ["## User", "", message.content or "", ""]
        elif message.role == "assistant":
            out += ["## Assistant", ""]
            if message.reasoning:
                out += ["<details><summary>Reasoning</summary>", "", message.reasoning.strip(), "", "</details>", ""]
            if message.interrupted:
                out += ["*(interrupted)*", ""]
            if message.content:
                out += [message.content, ""]
            for call in message.tool_calls or ():
                calls[call.id] = call.name
                arguments = fence(_pretty_json(call.function.arguments or "{}"), "json")
                out += [f"**Tool call** `{call.name}`", "", arguments, ""]
        else:
            name = message.name or calls.get(message.tool_call_id or "", "tool")
            out += [f"**Result** of `{name}`", "", fence(_cap(_pretty_json(message.content or "")), "json"), ""]
            if entry.diff:
                out += ["**Diff**", "", fence(entry.diff, "diff"), ""]
    return "\n".join(out).rstrip() + "\n"


def _marker(marker: CompactionMarker) -> list[str]:
    summary = marker.summary.content or ""
    return [
        "---",
        "",
        f"*Context compacted here ({marker.tokens_before:,} -> {marker.tokens_after:,} tokens): from this point the "
        "model saw this summary instead of the messages above.*",
        "",
        "<details><summary>Summary</summary>",
        "",
        summary.strip(),
        "",
        "</details>",
        "",
        "---",
        "",
    ]


def fence(text: str, language: str = "") -> str:
    """A code fence longer than any run of backticks inside ``text``, so the block cannot end early."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}{language}\n{text.rstrip()}\n{marks}"


def default_export_name(title: str, session_id: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:50].strip("-")
    return f"{slug or 'session-' + session_id}.md"


def _pretty_json(text: str) -> str:
    try:
        value: Any = json.loads(text)
    except json.JSONDecodeError:
        return text
    return json.dumps(value, indent=2, ensure_ascii=False)


def _cap(text: str) -> str:
    if len(text) <= MAX_RESULT_CHARS:
        return text
    return text[:MAX_RESULT_CHARS] + f"\n... ({len(text) - MAX_RESULT_CHARS} more characters in the session file)"
