"""The stores a store test opens on one backend (``spec``), closed after it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.store.test_contract import Stores


@pytest.fixture
async def stores(spec: str) -> AsyncIterator[Stores]:
    opened = Stores(spec)
    try:
        yield opened
    finally:
        await opened.close()
