"""``/help``: the slash commands, the input rules and every key binding, from the same table as the footer."""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widgets import Static

from coder_tui.bindings import help_rows

INPUT_RULES: tuple[tuple[str, str], ...] = (
    ("text", "a request to the model"),
    ("!command", "run a shell command in the workspace directly (no model, no approval)"),
    ("/command", "run a slash command"),
    ("@path", "attach a workspace file to the request (Tab completes, fuzzy)"),
)


def help_content(commands: Sequence[tuple[str, str]]) -> Content:
    """The help text: commands, input rules, then bindings grouped by where they apply."""
    parts: list[Content] = [Content.styled("Commands", "bold $text-primary")]
    width = max((len(name) for name, _ in commands), default=0)
    parts += [Content.assemble((f"  {name:<{width}}", "bold"), f"  {about}") for name, about in commands]
    parts.append(Content.styled("\nInput", "bold $text-primary"))
    parts += [Content.assemble((f"  {form:<10}", "bold"), f"  {about}") for form, about in INPUT_RULES]
    parts.append(Content.styled("\nKeys", "bold $text-primary"))
    rows = help_rows()
    key_width = max(len(keys) for _, keys, _ in rows)
    where_width = max(len(where) for where, _, _ in rows) + 1
    parts += [
        Content.assemble((f"  {where:<{where_width}}", "$text-muted"), (f"{keys:<{key_width}}", "bold"), f"  {about}")
        for where, keys, about in rows
    ]
    return Content("\n").join(parts)


class HelpView(Static):
    """The ``/help`` block in the transcript."""

    DEFAULT_CSS = """
    HelpView {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: vkey $primary 50%;
    }
    """

    def __init__(self, commands: Sequence[tuple[str, str]]) -> None:
        super().__init__(help_content(commands))
