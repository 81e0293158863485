"""The model's reasoning, shown in full and dimmed (SPEC 15: not folded), streamed like the answer."""

from __future__ import annotations

from coder_tui.widgets.streaming_markdown import StreamingMarkdown


class ReasoningBlock(StreamingMarkdown):
    """Reasoning text: the same streaming Markdown as an answer, in muted italics with a thin rule on the left."""

    DEFAULT_CSS = """
    ReasoningBlock {
        color: $text-muted;
        text-style: italic;
        border-left: vkey $foreground 20%;
    }
    """
