"""The assistant's answer in the transcript: Markdown, streamed as it arrives."""

from __future__ import annotations

from coder_tui.widgets.streaming_markdown import StreamingMarkdown


class AssistantMessage(StreamingMarkdown):
    """One assistant message's text (its tool calls are shown by ``ToolCallView`` widgets that follow it)."""
