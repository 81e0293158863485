"""Permission presets (SPEC 4): each moves the mode with it, and each mode has its preset.

`strict` is `default` mode with one difference: bash asks for every command, the read-only whitelist
included, so nothing but the read tools runs unseen. `balanced` is plain `default`; `auto-edit` (alias
`build`), `yolo` and `plan` are their modes.
"""

from __future__ import annotations

from engine.modes import Mode

PRESET_MODES: dict[str, Mode] = {
    "strict": Mode.DEFAULT,
    "balanced": Mode.DEFAULT,
    "auto-edit": Mode.AUTO_EDIT,
    "yolo": Mode.YOLO,
    "plan": Mode.PLAN,
}
PRESET_ALIASES: dict[str, str] = {"build": "auto-edit"}
MODE_PRESETS: dict[Mode, str] = {
    Mode.DEFAULT: "balanced",
    Mode.AUTO_EDIT: "auto-edit",
    Mode.YOLO: "yolo",
    Mode.PLAN: "plan",
}
STRICT = "strict"


def parse_preset(name: str) -> str:
    """The canonical preset name; ``ValueError`` naming the choices for an unknown one."""
    key = name.strip().lower()
    key = PRESET_ALIASES.get(key, key)
    if key not in PRESET_MODES:
        choices = ", ".join([*PRESET_MODES, *PRESET_ALIASES])
        raise ValueError(f"unknown permission preset {name!r}: choose one of {choices}")
    return key


def preset_for_mode(mode: Mode, current: str | None = None) -> str:
    """The preset a mode switch lands on: the current one when it already belongs to that mode (strict stays
    strict when the mode is set to default again), else the mode's own preset."""
    if current is not None and PRESET_MODES.get(current) == mode:
        return current
    return MODE_PRESETS[mode]
