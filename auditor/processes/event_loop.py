"""The event loop a process runs (`--loop`: asyncio's, or uvloop), and work a stop may end."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from auditor.config import EventLoop
from auditor.errors import LoopError

T = TypeVar("T")


def loop_factory(choice: EventLoop) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The factory of the loop `choice` names; None for asyncio's default."""
    if choice is EventLoop.ASYNCIO:
        return None
    try:
        import uvloop  # noqa: PLC0415 - an optional extra
    except ImportError:
        if choice is EventLoop.UVLOOP:
            raise LoopError(
                "--loop uvloop: uvloop is not installed (pip install 'sitemap-auditor[uvloop]')"
            ) from None
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def run_in_loop(main: Coroutine[Any, Any, T], choice: EventLoop) -> T:
    """Run `main` to its end in a new loop of the kind `choice` names (asyncio.run otherwise)."""
    try:
        factory = loop_factory(choice)
    except LoopError:
        main.close()  # never started: no "never awaited" warning
        raise
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)


async def until_stopped(work: Coroutine[Any, Any, None], stop: asyncio.Event | None) -> bool:
    """Run `work`; True when it finished, False when `stop` was set first (work cancelled)."""
    if stop is None:
        await work
        return True
    async with asyncio.TaskGroup() as group:
        working = group.create_task(work)
        stopping = group.create_task(stop.wait())
        await asyncio.wait({working, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finished = working.done()
        working.cancel()
        stopping.cancel()
    return finished
