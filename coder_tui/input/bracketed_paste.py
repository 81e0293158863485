"""A bracketed paste taken out of the terminal's input before it is parsed as keys (SPEC 25: a paste is text).

Textual's parser reads escape sequences inside a bracketed paste as keys: a pasted BEL (the end of an OSC 52 in a
copied web page) arrived as Ctrl+G and opened the external editor, a pasted ``ESC [ A`` as Up. ``PasteCutter``
splits the decoded input into the text for the parser and each whole paste (everything between ``ESC [ 200 ~`` and
``ESC [ 201 ~``, across reads), which the driver hands to the app as one ``Paste`` event; the prompt then makes its
controls visible.
"""

from __future__ import annotations

START, END = "\x1b[200~", "\x1b[201~"


class PasteCutter:
    def __init__(self) -> None:
        self._paste: list[str] | None = None  # inside a paste: what it holds so far
        self._held = ""  # the end of the last read, which may be the start of a marker

    def feed(self, text: str) -> list[tuple[bool, str]]:
        """``(is_paste, text)`` pieces in order: input for the parser, or a whole paste's text."""
        text, self._held = self._held + text, ""
        pieces: list[tuple[bool, str]] = []
        while text:
            marker = END if self._paste is not None else START
            found = text.find(marker)
            if found < 0:
                keep = _partial_marker(text, marker)
                text, self._held = text[: len(text) - keep], text[len(text) - keep :]
                if self._paste is not None:
                    self._paste.append(text)
                elif text:
                    pieces.append((False, text))
                break
            before, text = text[:found], text[found + len(marker) :]
            if self._paste is None:
                if before:
                    pieces.append((False, before))
                self._paste = []
            else:
                pieces.append((True, "".join([*self._paste, before])))
                self._paste = None
        return pieces


    @property
    def holding(self) -> bool:
        """Outside a paste, input is held that may begin one (a lone ESC, say): ``flush`` it if no more comes."""
        return self._paste is None and bool(self._held)

    def flush(self) -> str:
        """The input held back, for the parser, once no more input has come (it was an Esc key, not a paste)."""
        if self._paste is not None:
            return ""
        held, self._held = self._held, ""
        return held


def _partial_marker(text: str, marker: str) -> int:
    """How many characters at the end of ``text`` begin ``marker`` (held until the next read says)."""
    for size in range(min(len(marker) - 1, len(text)), 0, -1):
        if marker.startswith(text[-size:]):
            return size
    return 0
