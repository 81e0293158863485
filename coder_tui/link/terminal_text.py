"""The terminal shows text, never commands (SPEC 25): the one function that turns outside text into text a
terminal can draw.

Outside text (the model's answer and reasoning, tool arguments and output, file contents and names, MCP results,
hook output, server errors) may hold what a terminal obeys rather than draws: escape sequences (CSI, OSC with its
clipboard writes, links and titles, DCS, APC, PM, SOS), C1 controls (U+0080-U+009F, which some terminals obey as
the 8-bit forms of ``ESC [``, ``ESC ]``…), a bare ESC, carriage returns and backspaces that overstrike what was
drawn, bidirectional overrides and isolates that reorder it, and invisible characters that hide it.

``terminal_text`` removes complete escape sequences (an ``ls --color`` listing keeps its text, loses its colours)
and shows every other control visibly (``␛``, ``␍``, ``<U+202E>``), so a sequence cut in two by a stream's chunks
cannot survive: each chunk's ESC is drawn as ``␛`` whatever follows in the next one. ``\\n`` and ``\\t`` stay, and
``\\r\\n`` becomes ``\\n``.

``visible_text`` is stricter, for what the user is asked to approve: newlines and tabs are marked too, and every
invisible or format character (zero-width joiners, unusual spaces) is named, so no padding can hide what will run.

Neither imports Textual: headless mode prints through ``terminal_text`` as well.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

# Complete escape sequences, in their 7-bit (ESC-introduced) and 8-bit (C1-introduced) forms: removed whole.
_CSI = r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
# OSC, DCS, SOS, PM and APC run to a terminator: ST (ESC \ or U+009C), or BEL for OSC.
_STRING = r"(?:\x1b[\]PX^_]|[\x9d\x90\x98\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)"
# A two-character escape (ESC 7, ESC c, ESC ( B…): ESC and one final byte.
_SHORT = r"\x1b[ -/]*[0-~]"
_SEQUENCE = re.compile(f"{_CSI}|{_STRING}|{_SHORT}")

# Bidirectional embeddings, overrides, isolates and marks: they reorder or hide what is drawn around them.
BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Invisible characters a terminal draws as nothing (or as a line break: U+2028, U+2029); the byte order mark.
INVISIBLE = frozenset("\u00ad\u115f\u1160\u180e\u200b\u2028\u2029\u2060\u2061\u2062\u2063\u2064\ufeff\u3164\uffa0")

_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff"
    + "".join(sorted(BIDI | INVISIBLE))
    + "\U000e0000-\U000e007f]"
)


def _shown(char: str) -> str:
    """How one unsafe character is drawn."""
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␛ ␍ ␈ ␀ …
    if code == 0x7F:
        return "␡"
    if 0x80 <= code <= 0x9F:
        return "␛" + chr(code - 0x40)  # C1 as its 7-bit form: U+009B is shown as ␛[
    if 0xD800 <= code <= 0xDFFF:
        return "\ufffd"  # a lone surrogate (undecodable bytes kept by surrogateescape) would be written raw
    return f"<U+{code:04X}>"


def is_drawable(text: str) -> bool:
    """``text`` holds nothing ``terminal_text`` would change."""
    return not _UNSAFE.search(text)


def terminal_text(text: str) -> str:
    """``text`` safe to draw: escape sequences removed, every other control or invisible character shown."""
    if not _UNSAFE.search(text):
        return text
    text = _SEQUENCE.sub("", text).replace("\r\n", "\n")
    return _UNSAFE.sub(lambda match: _shown(match.group()), text)


def _json_escape(char: str) -> str:
    units = char.encode("utf-16-le", "surrogatepass")
    return "".join(f"\\u{int.from_bytes(units[i:i + 2], 'little'):04x}" for i in range(0, len(units), 2))


def json_text(value: Any) -> str:
    """``value`` as one JSON text that a terminal can show: ``json.dumps`` already escapes C0 controls; C1 codes,
    bidirectional and invisible characters are escaped too (``\\u009b``), so the data is unchanged for a reader
    of the JSON and nothing reaches the terminal raw."""
    return _UNSAFE.sub(lambda match: _json_escape(match.group()), json.dumps(value, ensure_ascii=False))


_TAB_SHOWN = "→   "
# Characters a command may hold that look like nothing or like a plain space.
_FORMAT_CATEGORIES = frozenset({"Cf", "Zs", "Zl", "Zp", "Co", "Cn"})


def visible_text(text: str, *, mark_newlines: bool = True) -> str:
    """``text`` with nothing hidden, for the approval dialog: like ``terminal_text``, and a newline is shown as
    ``↵`` before its line break (unless ``mark_newlines`` is false: a diff's lines), a tab as ``→``, every format or
    unusual space character by its code point, and escape sequences are shown rather than removed."""
    shown: list[str] = []
    for char in text:
        if char == "\n":
            shown.append("↵\n" if mark_newlines else "\n")
        elif char == "\t":
            shown.append(_TAB_SHOWN)
        elif _UNSAFE.match(char):
            shown.append(_shown(char))
        elif char != " " and unicodedata.category(char) in _FORMAT_CATEGORIES:
            shown.append(f"<U+{ord(char):04X}>")
        else:
            shown.append(char)
    return "".join(shown)
