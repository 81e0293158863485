"""Each mode's own colour and badge (SPEC 4: the prompt line always shows the mode, each in its colour)."""

from __future__ import annotations

from textual.content import Content

MODE_STYLES: dict[str, str] = {
    "plan": "bold $text-warning",
    "default": "bold $text-primary",
    "auto-edit": "bold $text-success",
    "yolo": "bold $text-error",
}

MODE_GLYPHS: dict[str, str] = {"plan": "⏸", "default": "▶", "auto-edit": "⏵⏵", "yolo": "⚠"}


def mode_badge(mode: str) -> Content:
    """``⏵⏵ auto-edit`` in the mode's colour."""
    style = MODE_STYLES.get(mode, "bold")
    return Content.styled(f"{MODE_GLYPHS.get(mode, '▶')} {mode}", style)
