"""A stopped engine (a signal, a full disk): the checks still in flight end quietly.

The run's task that hands outcomes on is cancelled while checks wait on a real server
(127.0.0.1); when their answers come after, nothing fails and nothing is logged as an error.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, NamedTuple

import pytest
from aiohttp import web

from auditor.checks.check_run import Outcome
from auditor.demo.server import Route
from tests.checks.test_conditional import PAGE, page_checker

pytestmark = pytest.mark.usefixtures("engine")
SLOW = 4


class Key(NamedTuple):
    digest: int


async def test_checks_answered_after_the_run_stopped_end_quietly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    release, asked = asyncio.Event(), asyncio.Semaphore(0)
    answered: list[int] = []

    async def slow(request: web.Request) -> web.StreamResponse:
        asked.release()
        await release.wait()
        answered.append(1)
        return web.Response(text=PAGE, content_type="text/html")

    loop_errors: list[dict[str, object]] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, context: loop_errors.append(context))
    kept: list[tuple[Any, Outcome]] = []

    async def emit(_batch: list[tuple[Any, Outcome]]) -> None:
        raise AssertionError("nothing is answered before the stop")

    routes: dict[str, Route] = {f"/p{n}": slow for n in range(SLOW)}
    with caplog.at_level(logging.ERROR):
        async with page_checker(routes) as (engine, base):
            engine.hand_to(emit, keep=kept.extend)
            for n in range(SLOW):
                assert engine.add(Key(n + 1), f"{base}/p{n}", base)
            running = asyncio.create_task(engine.run())
            for _ in range(SLOW):  # every check is at the server
                await asyncio.wait_for(asked.acquire(), 10)
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
            release.set()
            for _ in range(200):  # the answers come back to checks nobody waits for
                if len(answered) == SLOW:
                    break
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.2)
    loop.set_exception_handler(None)
    assert len(answered) == SLOW
    assert kept == []  # nothing was answered before the stop
    assert loop_errors == []
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
