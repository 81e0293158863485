"""The transcript of a session as Markdown (``/export``): user requests (what coder-tui added to one, such as an
attached file or a system reminder, under its own heading), answers, reasoning, every tool call with its arguments,
result, final state and the diff it showed, the notes the model was given of the user's actions (an undo), across
every context epoch, with a marker where the context was compacted."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from engine.context.added_blocks import split_added
from engine.storage.sessions.records import CompactionMarker, HistoryEntry

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
        if message.role == "user" and message.origin == "note":
            out += ["## Note to the model", "", message.content or "", ""]
        elif message.role == "user":
            words, added = split_added(message.content or "")
            out += ["## User", "", words, ""]
            if added:
                out += ["### Added by coder-tui", "", fence(added), ""]
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
            state = f" ({message.status})" if message.status not in (None, "success") else ""
            out += [f"**Result** of `{name}`{state}", "", fence(_cap(result_text(message.content or ""))), ""]
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


EXPORT_NAME_CHARS = 50


def default_export_name(title: str, session_id: str) -> str:
    """The title's words joined by ``-``, as many whole words as fit in ``EXPORT_NAME_CHARS`` (a title cut with
    an ellipsis loses its last, cut word too)."""
    words = re.sub(r"[^a-z0-9…]+", " ", title.lower()).split()
    if words and words[-1].endswith("…"):
        words.pop()
    slug = ""
    for word in words:
        longer = f"{slug}-{word}" if slug else word
        if len(longer) > EXPORT_NAME_CHARS:
            break
        slug = longer
    slug = slug or "-".join(words)[:EXPORT_NAME_CHARS]  # one word longer than the whole name: cut it
    slug = re.sub(r"[^a-z0-9-]", "", slug).strip("-")
    return f"{slug or 'session-' + session_id}.md"


def result_text(content: str) -> str:
    """A tool result as the transcript shows it, not as escaped JSON: the error; a command's fixed structure ($ the
    command, its exit code, stdout, stderr); else the short facts on one line and each long text in full."""
    try:
        value: Any = json.loads(content)
    except json.JSONDecodeError:
        return content
    if not isinstance(value, dict):
        return _pretty_json(content)
    if value.get("ok") is False:
        return f"error: {value.get('error', 'failed')}"
    if "command" in value and "exit_code" in value:
        lines = [f"$ {value['command']}", f"exit code {value['exit_code']}"]
        for stream in ("stdout", "stderr"):
            if text := str(value.get(stream) or "").rstrip("\n"):
                lines += [f"{stream}:", text]
        return "\n".join(lines)
    facts, blocks = [], []
    for key, item in value.items():
        if key == "ok":
            continue
        if isinstance(item, str) and ("\n" in item or len(item) > 60):
            blocks.append(item.rstrip("\n"))
        elif isinstance(item, (list, dict)):
            blocks.append(json.dumps(item, indent=2, ensure_ascii=False))
        else:
            facts.append(f"{key}: {item}")
    return "\n".join(part for part in ("  ".join(facts), *blocks) if part)


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
