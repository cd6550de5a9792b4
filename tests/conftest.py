"""Fixtures and settings shared by every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from blockbuster import BlockBuster, blockbuster_ctx
from hypothesis import settings

from auditor.config import Engine
from tests.engines import ENGINE, ENGINES

# Property tests are deterministic by default, so that CI is; `--hypothesis-profile=long`
# searches afresh, and deeper, each run.
settings.register_profile("deterministic", derandomize=True, deadline=None)
settings.register_profile("long", max_examples=5_000, deadline=None)
settings.load_profile("deterministic")


@pytest.fixture(autouse=True)
def blockbuster() -> Iterator[BlockBuster]:
    """Fail any test in which the auditor makes a blocking call inside the event loop."""
    with blockbuster_ctx(["auditor"]) as detector:
        yield detector


@pytest.fixture(params=ENGINES, ids=[engine.value for engine in ENGINES])
def engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    """Each test of the check path once per transport: libcurl's and aiohttp's."""
    chosen: Engine = request.param
    token = ENGINE.set(chosen)
    yield chosen
    ENGINE.reset(token)
