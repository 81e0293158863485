"""The ways two pieces of text may differ yet mean the same edit: runs of white space, escaping, typography.

Each function maps text to a comparison key; two texts that map to the same key are "the same" at that level of
tolerance. They are shared by ``edit``'s strategies and ``patch``'s context search.
"""

from __future__ import annotations

import re

_WHITESPACE_RUN = re.compile(r"\s+")
# What a model double-escapes when it writes code inside a JSON string (``\\n`` for a newline, ``\\"`` for a quote).
_ESCAPE = re.compile(r"\\(n|t|'|\"|`|\\|\$|\n)")
_UNESCAPED = {"n": "\n", "t": "\t", "'": "'", '"': '"', "`": "`", "\\": "\\", "$": "$", "\n": "\n"}

# Typographic characters folded to their ASCII look-alikes: models write ASCII where files hold "smart" punctuation.
_PUNCTUATION = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"'),
        **dict.fromkeys("\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "),
        "\u2026": "...",
    }
)


def collapse_whitespace(text: str) -> str:
    """Every run of white space (newlines included) as one space, and none at either end."""
    return _WHITESPACE_RUN.sub(" ", text).strip()


def unescape(text: str) -> str:
    """``text`` with one level of backslash escaping undone: ``\\\\n`` becomes a newline, ``\\\\"`` a quote."""
    return _ESCAPE.sub(lambda match: _UNESCAPED[match.group(1)], text)


def fold_punctuation(text: str) -> str:
    """Unicode dashes, quotes, spaces and the ellipsis replaced by their ASCII forms."""
    return text.translate(_PUNCTUATION)
