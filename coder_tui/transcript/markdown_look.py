"""How the transcript's Markdown looks: Rich's Markdown renderer dressed like Textual's Markdown widget.

``MarkdownLines`` renders with Rich (one light widget instead of a tree of block widgets). So that answers still look
like the rest of a Textual app, Rich's ``markdown.*`` styles are set from the theme variables Textual's Markdown CSS
uses (headings, inline code, bullets, links, rules), code blocks are highlighted by Textual's own highlighter on the
background Textual's code fences use, and bullets, numbers, quotes, rules and tables are drawn the way Textual
draws them.
"""

from __future__ import annotations

import json

from collections.abc import Callable, Iterable
from functools import cache
from typing import TYPE_CHECKING, ClassVar

from markdown_it import MarkdownIt
from rich import box
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import (
    BlockQuote,
    CodeBlock,
    HorizontalRule,
    ListElement,
    ListItem,
    Markdown,
    MarkdownElement,
    TableElement,
)
from rich.rule import Rule
from rich.segment import Segment
from rich.table import Table
from rich.text import Text
from rich.theme import Theme
from textual.content import Content
from textual.style import Style

from engine.record import record

if TYPE_CHECKING:
    from markdown_it.token import Token
    from textual.widget import Widget

# As Textual's MarkdownFence: "background: black 10%", "color: rgb(210,210,210)", "padding: 1 2" around the code.
_FENCE_STYLE = "rgb(210,210,210) on black 10%"
_FENCE_PADDING = 2
# Rich's markdown style name -> Textual style, mirroring Textual's Markdown DEFAULT_CSS (dark themes).
_DARK_STYLES = {
    "markdown.code": "$text-warning 95% on $warning 10%",
    "markdown.item.bullet": "$text-primary",
    "markdown.item.number": "$text-primary",
    "markdown.block_quote": "on $boost",
    "markdown.block_quote.bar": "$text-primary 50% on $boost",
    "markdown.hr": "$secondary",
    "markdown.link": "underline",
    "markdown.link_url": "underline",
    "markdown.table.header": "$text-primary",
    "markdown.table.border": "$foreground 30%",
}
_LIGHT_OVERRIDES = {"markdown.code": "$text-error 95% on $error 5%", "markdown.item.bullet": "$text-secondary"}


@record
class MarkdownLook:
    """A Rich theme and a code-block style for one widget's base style in one app theme."""

    theme: Theme
    fence_style: Style
    parse_style: Callable[[str | Style], Style]

    def renderable(self, markdown: str) -> Markdown:
        return _ThemedMarkdown(markdown, self)


_looks: dict[tuple[str, str], MarkdownLook] = {}


def markdown_look(widget: Widget) -> MarkdownLook:
    """The look for Markdown rendered in ``widget`` (its colours blend over the widget's own background)."""
    app = widget.app
    base = widget.visual_style
    key = (app.theme, repr(base))
    look = _looks.get(key)
    if look is None:
        look = _looks[key] = _make_look(app.get_css_variables(), app.current_theme.dark, base,
                                        app.stylesheet.parse_style)
    return look


def _make_look(
    variables: dict[str, str], dark: bool, base: Style, parse_style: Callable[[str | Style], Style]
) -> MarkdownLook:
    wanted = dict(_DARK_STYLES) if dark else {**_DARK_STYLES, **_LIGHT_OVERRIDES}
    for level in range(1, 7):
        text_style = variables.get(f"markdown-h{level}-text-style", "bold")
        color = variables.get(f"markdown-h{level}-color", "$text-primary")
        # Underlined text is a link in the transcript (and a terminal's links are underlined): a heading is bold
        # in its colour instead (Textual's theme underlines level 2 and 4).
        kept = [word for word in text_style.split() if word not in ("underline", "none")]
        wanted[f"markdown.h{level}"] = f"{color} {' '.join(dict.fromkeys([*kept, 'bold']))}"
    theme = Theme({name: (base + parse_style(text)).rich_style for name, text in wanted.items()})
    return MarkdownLook(theme, base + parse_style(_FENCE_STYLE), parse_style)


class _FenceBlock(CodeBlock):
    """A code block as Textual's MarkdownFence draws it: Textual's highlighter, padded, on the fence background
    (wrapped rather than scrolled: a static line cannot scroll sideways)."""

    look: MarkdownLook

    @classmethod
    def create(cls, markdown: Markdown, token: Token) -> CodeBlock:
        block = super().create(markdown, token)
        assert isinstance(markdown, _ThemedMarkdown) and isinstance(block, _FenceBlock)
        block.look = markdown.look
        return block

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from textual.highlight import HighlightTheme, highlight

        width = options.max_width
        inner = max(width - 2 * _FENCE_PADDING, 1)
        source = str(self.text).rstrip()
        language = fence_language(self.lexer_name, source)
        if language == "diff":
            from coder_tui.widgets.diff_view import diff_content

            code = diff_content(source)  # coloured as the diffs of edits are, not left plain by the highlighter
        else:
            code = highlight(source, language=language, theme=HighlightTheme)
        fence = self.look.fence_style
        background = fence.rich_style
        blank = [Segment(" " * width, background), Segment.line()]
        yield from blank
        for line in _wrapped(code.split("\n"), inner):
            yield Segment(" " * _FENCE_PADDING, background)
            for text, style in line.render(fence, end="", parse_style=self.look.parse_style):
                yield Segment(text, style.rich_style)
            yield Segment(" " * (width - _FENCE_PADDING - line.cell_length), background)
            yield Segment.line()
        yield from blank


def fence_language(name: str, code: str) -> str:
    """The Pygments language a fence is highlighted in: its own (``name``; Rich says "text" when it names none) if
    Pygments has it built in, else plain text; a fence that names none is guessed from its code, as Textual does.

    Only built-in lexers are considered: Pygments looks for any other in the installed packages' plugins, and that
    imports every package that registers one (IPython and jedi, where installed: a third of a second holding the
    interpreter's lock). A streamed fence's unfinished name ("pyt") would trigger that lookup too."""
    if name != "text":
        alias = name.lower()
        return alias if alias in _builtin_aliases() else "text"
    return _guessed_language(code) if code else "text"


@cache
def _builtin_aliases() -> frozenset[str]:
    from pygments.lexers._mapping import LEXERS

    return frozenset(alias for _module, _name, aliases, _files, _types in LEXERS.values() for alias in aliases)


# What a fence that names no language is guessed among: common languages whose lexer rates a text
# (``analyse_text``: a shebang, ``#include``, a diff's headers...). Guessing over every lexer, as Pygments'
# ``guess_lexer`` does, imported ~500 modules (half a second holding the interpreter's lock, 16 MB) and often named
# an exotic language for plain code; a fence no candidate recognises stays plain text.
_GUESSABLE = ("diff", "python", "bash", "html", "xml", "c", "cpp", "sql", "make", "ruby", "php", "perl", "ini")


def _guessed_language(code: str) -> str:
    """JSON when the code parses as a JSON object or array, else the best-rated of ``_GUESSABLE``, else text."""
    if code.lstrip()[:1] in ("{", "["):
        try:
            json.loads(code)
        except ValueError:
            pass
        else:
            return "json"
    from pygments.lexers import find_lexer_class_by_name

    best, score = "text", 0.0
    for alias in _GUESSABLE:
        rating = find_lexer_class_by_name(alias).analyse_text(code)
        if rating > score:
            best, score = alias, rating
        if rating >= 1.0:
            break
    return best


def _wrapped(lines: Iterable[Content], width: int) -> Iterable[Content]:
    for line in lines:
        yield from (line.fold(width) if line.cell_length > width else (line,))


class _ListItem(ListItem):
    """Textual's list markers: ``• `` flush left, ``1. `` right-aligned."""

    def render_bullet(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield from self._render_marked("• ", console, options)

    def render_number(
        self, console: Console, options: ConsoleOptions, number: int, last_number: int
    ) -> RenderResult:
        yield from self._render_marked(f"{number}. ".rjust(len(f"{last_number}. ") + 1), console, options)

    def _render_marked(self, marker: str, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self.elements, options.update(width=options.max_width - len(marker)),
                                     style=self.style)
        marker_style = console.get_style("markdown.item.bullet", default="none")
        for index, line in enumerate(lines):
            yield Segment(marker if index == 0 else " " * len(marker), marker_style)
            yield from line
            yield Segment.line()


class _ListElement(ListElement):
    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # The numbering rjust needs the last number shown, not the one after it as Rich passes.
        if self.list_type == "bullet_list_open":
            for item in self.items:
                yield from item.render_bullet(console, options)
            return
        first = self.list_start or 1
        for index, item in enumerate(self.items):
            yield from item.render_number(console, options, first + index, first + len(self.items) - 1)


class _BlockQuote(BlockQuote):
    """A bar in the primary colour and a boosted background, as Textual's MarkdownBlockQuote."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self.elements, options.update(width=options.max_width - 2),
                                     style=self.style, pad=True)
        bar = Segment("▌ ", console.get_style("markdown.block_quote.bar", default="none"))
        for line in lines:
            yield bar
            yield from line
            yield Segment.line()


class _HorizontalRule(HorizontalRule):
    new_line = True  # a blank line after it, as after every other block, so chunked rendering matches whole

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Rule(style=console.get_style("markdown.hr", default="none"), characters="─")


class _TableElement(TableElement):
    """A full-width grid, as Textual's MarkdownTable."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        table = Table(box=box.SQUARE, style="markdown.table.border", show_lines=True, expand=True)
        if self.header is not None and self.header.row is not None:
            for column in self.header.row.cells:
                table.add_column(Text.assemble(column.content, style="markdown.table.header"))
        if self.body is not None:
            for row in self.body.rows:
                table.add_row(*(cell.content for cell in row.cells))
        yield table


class _ThemedMarkdown(Markdown):
    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "fence": _FenceBlock,
        "code_block": _FenceBlock,
        "bullet_list_open": _ListElement,
        "ordered_list_open": _ListElement,
        "list_item_open": _ListItem,
        "blockquote_open": _BlockQuote,
        "hr": _HorizontalRule,
        "table_open": _TableElement,
    }

    def __init__(self, markup: str, look: MarkdownLook) -> None:
        # Rich's own __init__ builds a markdown-it parser per document (most of the cost of a short one); a resumed
        # transcript renders a hundred, so the same attributes are set here with one shared parser.
        self.markup = markup
        self.parsed = _parser().parse(markup)
        self.code_theme = "monokai"
        self.justify = None
        self.style = "none"
        self.hyperlinks = True
        self.inline_code_lexer = None
        self.inline_code_theme = self.code_theme
        self.look = look


@cache
def _parser() -> MarkdownIt:
    return MarkdownIt().enable("strikethrough").enable("table")
