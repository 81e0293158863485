"""The four modes of SPEC 4 and their names."""

from __future__ import annotations

from enum import Enum


class Mode(str, Enum):
    PLAN = "plan"
    DEFAULT = "default"
    AUTO_EDIT = "auto-edit"
    YOLO = "yolo"

    @classmethod
    def parse(cls, name: str) -> Mode:
        """Accepts every mode name and the alias ``build`` (= auto-edit); raises ``ValueError`` otherwise."""
        key = name.strip().lower()
        if key in MODE_ALIASES:
            return MODE_ALIASES[key]
        try:
            return cls(key)
        except ValueError:
            choices = ", ".join([m.value for m in cls] + list(MODE_ALIASES))
            raise ValueError(f"unknown mode {name!r}: choose one of {choices}") from None


MODE_ALIASES: dict[str, Mode] = {"build": Mode.AUTO_EDIT, "autoedit": Mode.AUTO_EDIT, "auto_edit": Mode.AUTO_EDIT}

# Shift+Tab in the TUI cycles through these; yolo is reachable only by command.
MODE_CYCLE: tuple[Mode, ...] = (Mode.DEFAULT, Mode.AUTO_EDIT, Mode.PLAN)


def next_mode(mode: Mode) -> Mode:
    if mode not in MODE_CYCLE:
        return Mode.DEFAULT
    return MODE_CYCLE[(MODE_CYCLE.index(mode) + 1) % len(MODE_CYCLE)]
