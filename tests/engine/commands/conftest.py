from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.support.fakes import close_orchestrators  # noqa: F401 (autouse fixture)
from tests.support.fakes import CREATED




@pytest.fixture(autouse=True)
def own_user_config(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """``/theme`` and custom commands read the user's config folder: never the real one."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("HOME", str(home))
