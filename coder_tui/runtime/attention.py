"""Calling the user back (SPEC 23): when a turn ends or an approval waits while the terminal is not focused, a
desktop notification through OSC 9 in terminals that show one, else the bell. Textual's ``app_focus`` follows the
terminal's focus reports."""

from __future__ import annotations

import os
from collections.abc import Mapping

from textual.app import App

# Terminals that turn OSC 9 into a desktop notification (the others would print it or ignore it).
OSC9_TERMINALS = frozenset({"iTerm.app", "WezTerm", "ghostty", "WarpTerminal"})


def supports_osc9(env: Mapping[str, str]) -> bool:
    return env.get("TERM_PROGRAM", "") in OSC9_TERMINALS or bool(env.get("WT_SESSION"))


def osc9(message: str) -> str:
    # The terminator ends the sequence, so a control character in the message must not end it early.
    clean = "".join(ch for ch in message if ch.isprintable())
    return f"\x1b]9;{clean}\x07"


class Attention:
    def __init__(self, app: App[object], env: Mapping[str, str] | None = None) -> None:
        self._app = app
        self._osc9 = supports_osc9(os.environ if env is None else env)

    def call(self, message: str) -> bool:
        """Notifies when the terminal is not focused; True when it did."""
        if self._app.app_focus:
            return False
        driver = self._app._driver
        if self._osc9 and driver is not None:
            driver.write(osc9(f"coder-tui: {message}"))
        else:
            self._app.bell()
        return True
