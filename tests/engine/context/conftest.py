"""Releases the HTTP connections of the orchestrators a test made, on the loop that made them."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.support.fakes import CREATED


@pytest.fixture(autouse=True)
async def close_orchestrators() -> AsyncIterator[None]:
    yield
    while CREATED:
        await CREATED.pop().aclose()
