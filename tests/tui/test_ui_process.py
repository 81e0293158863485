"""What the full screen's process sets before Textual loads (``prepare_ui_process``), for ``coder-tui`` and for the
one-process benchmark alike: a quick Esc and frame rate unless the user set their own, and a short switch interval."""

from __future__ import annotations

import os
import sys

import pytest

from coder_tui.cli import UI_SWITCH_INTERVAL_S, prepare_ui_process


def test_the_ui_process_settings_leave_the_users_own_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ESCDELAY", "100")  # a user on a slow link
    monkeypatch.delenv("TEXTUAL_FPS", raising=False)
    before = sys.getswitchinterval()
    try:
        prepare_ui_process()
        assert sys.getswitchinterval() == pytest.approx(UI_SWITCH_INTERVAL_S)
    finally:
        sys.setswitchinterval(before)
    assert os.environ["ESCDELAY"] == "100"
    assert os.environ["TEXTUAL_FPS"] == "240"
