"""Fixtures shared by every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from blockbuster import BlockBuster, blockbuster_ctx


@pytest.fixture(autouse=True)
def blockbuster() -> Iterator[BlockBuster]:
    """Fail any test in which the auditor makes a blocking call inside the event loop."""
    with blockbuster_ctx(["auditor"]) as detector:
        yield detector
