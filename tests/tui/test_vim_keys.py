"""Vim keys of the prompt (SPEC 27), table-driven on the pure engine (``coder_tui.input.vim``): each case is the
text with the cursor (``|``, on the character after it), the keys typed in normal mode, and the text, cursor and
mode after them. The prompt applies the same outcomes (``test_vim_prompt`` drives it on screen)."""

from __future__ import annotations

import pytest

from coder_tui.input.vim import VimKeys

KEY_NAMES = {"\x1b": "escape"}


def run(start: str, keys: str, mode: str = "normal") -> tuple[str, str]:
    """Types ``keys`` on ``start`` (``|`` marks the cursor) and returns the text with the cursor marked, and the
    mode. ``u`` undoes the last change, as the prompt's undo does."""
    cursor = start.index("|")
    text = start.replace("|", "", 1)
    vim = VimKeys(mode=mode)  # type: ignore[arg-type]
    history: list[tuple[str, int]] = []
    for char in keys:
        key = KEY_NAMES.get(char, char)
        outcome = vim.key(key, None if key == "escape" else char, text, cursor)
        if not outcome.handled:
            if vim.mode == "insert" and key != "escape":  # typed into the text, as the prompt does
                history.append((text, cursor))
                text, cursor = text[:cursor] + char + text[cursor:], cursor + 1
            continue
        if outcome.undo and history:
            text, cursor = history.pop()
        if outcome.edit is not None:
            history.append((text, cursor))
            edit = outcome.edit
            text, cursor = text[: edit.start] + edit.insert + text[edit.end :], edit.cursor
        if outcome.cursor is not None:
            cursor = outcome.cursor
    return text[:cursor] + "|" + text[cursor:], vim.mode


CASES = [
    # motions
    ("hello |world", "h", "hello| world", "normal"),
    ("hel|lo", "3h", "|hello", "normal"),
    ("he|llo", "l", "hel|lo", "normal"),
    ("he|llo", "9l", "hell|o", "normal"),
    ("one two| three", "0", "|one two three", "normal"),
    ("on|e two three", "$", "one two thre|e", "normal"),
    ("|one two three", "w", "one |two three", "normal"),
    ("|one two three", "2w", "one two |three", "normal"),
    ("|foo.bar baz", "w", "foo|.bar baz", "normal"),
    ("one two th|ree", "b", "one two |three", "normal"),
    ("one two th|ree", "2b", "one |two three", "normal"),
    ("|one two", "e", "on|e two", "normal"),
    ("|one two", "2e", "one tw|o", "normal"),
    ("a|bc\ndef\nghi", "j", "abc\nd|ef\nghi", "normal"),
    ("abc\ndef\ngh|i", "2k", "ab|c\ndef\nghi", "normal"),
    ("abcdef\nx\nab|cdef", "k", "abcdef\n|x\nabcdef", "normal"),
    ("abc\ndef\ng|hi", "gg", "|abc\ndef\nghi", "normal"),
    ("a|bc\ndef\nghi", "G", "abc\ndef\n|ghi", "normal"),
    ("a|bc\ndef\nghi", "2G", "abc\n|def\nghi", "normal"),
    # x, d, c, y, p, u
    ("a|bcd", "x", "a|cd", "normal"),
    ("a|bcd", "2x", "a|d", "normal"),
    ("abc|d", "x", "ab|c", "normal"),
    ("one |two three", "dw", "one |three", "normal"),
    ("one |two three", "2dw", "one| ", "normal"),
    ("one |two three", "d2w", "one| ", "normal"),
    ("one t|wo three", "d$", "one |t", "normal"),
    ("one t|wo three", "D", "one |t", "normal"),
    ("one t|wo three", "d0", "|wo three", "normal"),
    ("one tw|o\nnext", "dw", "one t|w\nnext", "normal"),
    ("abc\nd|ef\nghi", "dd", "abc\n|ghi", "normal"),
    ("abc\ndef\ng|hi", "dd", "abc\n|def", "normal"),
    ("a|bc\ndef\nghi", "2dd", "|ghi", "normal"),
    ("a|bc\ndef", "dj", "|", "normal"),
    ("one |two three", "cw", "one | three", "insert"),
    ("one t|wo three", "ciw", "one | three", "insert"),
    ("one t|wo three", "diw", "one | three", "normal"),
    ("one t|wo three", "daw", "one |three", "normal"),
    ("one t|wo three", "c$", "one t|", "insert"),
    ("one t|wo three", "C", "one t|", "insert"),
    ("abc\nd|ef\nghi", "cc", "abc\n|\nghi", "insert"),
    ("abc\nd|ef\nghi", "yyp", "abc\ndef\n|def\nghi", "normal"),
    ("abc\nd|ef\nghi", "yyP", "abc\n|def\ndef\nghi", "normal"),
    ("abc\nd|ef\nghi", "ddp", "abc\nghi\n|def", "normal"),
    ("|one two", "dwP", "one| two", "normal"),
    ("|one two", "xp", "n|oe two", "normal"),
    ("one |two three", "dwu", "one |two three", "normal"),
    ("a|bc", "xxuu", "a|bc", "normal"),
    # entering insert mode, typing, Esc back
    ("ab|c", "iX\x1b", "ab|Xc", "normal"),
    ("ab|c", "aX\x1b", "abc|X", "normal"),
    ("a|bc\nd", "AX\x1b", "abc|X\nd", "normal"),
    ("  a|bc", "IX\x1b", "  |Xabc", "normal"),
    ("a|bc\nd", "oX\x1b", "abc\n|X\nd", "normal"),
    ("abc\nd|ef", "OX\x1b", "abc\n|X\ndef", "normal"),
    # counts, unknown keys, pending commands cancelled by Esc
    ("|a b c d e", "3w", "a b c |d e", "normal"),
    ("a|bc", "z", "a|bc", "normal"),
    ("a|bc", "d\x1bx", "a|c", "normal"),
]


@pytest.mark.parametrize(("start", "keys", "expected", "mode"), CASES)
def test_vim_keys(start: str, keys: str, expected: str, mode: str) -> None:
    assert run(start, keys) == (expected, mode)


def test_insert_mode_leaves_keys_to_the_prompt_and_esc_goes_to_normal() -> None:
    vim = VimKeys()
    assert not vim.key("h", "h", "abc", 1).handled and vim.mode == "insert"
    assert vim.key("escape", None, "abc", 2).cursor == 1 and vim.mode == "normal"
    # Esc in normal mode, Enter and Ctrl keys do what they always do
    assert not vim.key("escape", None, "abc", 1).handled
    assert not vim.key("enter", None, "abc", 1).handled
    assert not vim.key("ctrl+r", None, "abc", 1).handled
