"""Releases the HTTP connections of the orchestrators a test made, on the loop that made them."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.support.fakes import close_orchestrators  # noqa: F401 (autouse fixture)
from tests.support.fakes import CREATED


