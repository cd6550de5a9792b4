"""A checker process (`--workers`): jobs in on stdin, results out on stdout (check_pool).

Started by the audit's process only. It ignores SIGINT and SIGTERM: a Ctrl-C reaches the
whole process group, and the parent decides how the run ends (it kills its children, or
closes their stdin, on the way out). A stop (check_pool.STOP_SIGNAL) drops the checks in
flight, sends the answered ones, and ends.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import signal
from collections.abc import Coroutine
from typing import Any, BinaryIO

from auditor.checks.stage import CheckLoop
from auditor.clock import SystemClock
from auditor.errors import FrameError
from auditor.http_stack import checker, checker_transport, openers
from auditor.models import CheckResult
from auditor.processes.check_pool import STOP_SIGNAL, CheckerSetup, PackedResult, pack_result
from auditor.processes.event_loop import run_in_loop
from auditor.processes.frame_stream import read_frame
from auditor.processes.frames import frame, read_frame_blocking

# Results written and not yet taken by the parent, before the workers wait for it.
MAX_UNSENT_BYTES = 1 << 20
PARENT_POLL_S = 0.5  # how often a child looks whether the audit's process is still there


def main() -> None:
    """Read the set-up frame, then check jobs until the parent sends the end or goes away."""
    parent = os.getppid()  # at once: the audit's process may die while this one starts
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    jobs_in = os.fdopen(os.dup(0), "rb", buffering=0)
    results_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # a stray print must not corrupt the frames
    setup = _read_setup(jobs_in)
    logging.basicConfig(
        level=setup.log_level, format="sitemap-audit[checker]: %(levelname)s %(name)s: %(message)s"
    )
    run_in_loop(_serve(setup, jobs_in, results_out, parent=parent), setup.config.loop)


def _read_setup(stream: BinaryIO) -> CheckerSetup:
    """The first frame, read before the event loop starts (exactly its bytes, no more)."""
    try:
        setup = read_frame_blocking(stream)
    except (EOFError, FrameError):
        raise SystemExit("sitemap-audit checker: no set-up frame; start it via --workers") from None
    assert isinstance(setup, CheckerSetup)
    return setup


async def _serve(
    setup: CheckerSetup, jobs_in: BinaryIO, results_out: BinaryIO, *, parent: int
) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), jobs_in)
    transport, protocol = await loop.connect_write_pipe(
        lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), results_out
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    config = setup.config

    unsent: list[PackedResult] = []

    def flush() -> None:
        if unsent and not writer.transport.is_closing():
            writer.write(frame(unsent))
        unsent.clear()

    def keep(pairs: list[tuple[int, CheckResult]]) -> None:
        # Results of one turn of the loop leave in one frame, at its end.
        if not unsent:
            loop.call_soon(flush)
        unsent.extend(pack_result(ident, result) for ident, result in pairs)

    async def send(pairs: list[tuple[int, CheckResult]]) -> None:
        keep(pairs)
        if writer.transport.get_write_buffer_size() > MAX_UNSENT_BYTES:
            await writer.drain()

    stop = asyncio.Event()
    loop.add_signal_handler(STOP_SIGNAL, stop.set)
    async with checker_transport(config, reach=setup.reach) as requests:
        clock = SystemClock()
        rng = random.Random()  # noqa: S311 - jitter, not secrets
        parts = openers(config, requests, clock=clock, rng=rng)
        checks = CheckLoop(
            checker(config, parts, clock=clock), workers=config.concurrency, emit=send, keep=keep
        )
        if not await _until_done(_check_all(reader, checks), stop=stop, parent=parent):
            return
    flush()
    await writer.drain()  # every answer is out before the process ends
    writer.close()
    await writer.wait_closed()


async def _until_done(work: Coroutine[Any, Any, bool], *, stop: asyncio.Event, parent: int) -> bool:
    """Run `work`: whether its answers are to be sent (all checked, or a stop: those answered).

    A parent that died (even killed, its end frame sent) ends the work: nobody is left to read
    the answers.
    """
    async with asyncio.TaskGroup() as group:
        working = group.create_task(work)
        gone = group.create_task(_parent_gone(parent))
        stopping = group.create_task(stop.wait())
        await asyncio.wait({working, gone, stopping}, return_when=asyncio.FIRST_COMPLETED)
        for task in (working, gone, stopping):
            task.cancel()
    if gone.done() and not gone.cancelled():
        return False
    if stopping.done() and not stopping.cancelled():
        return True
    return working.result()


async def _parent_gone(parent: int) -> None:
    """Return once this process has another parent: the audit's process died."""
    while os.getppid() == parent:  # noqa: ASYNC110 - nothing signals a parent's death
        await asyncio.sleep(PARENT_POLL_S)


async def _check_all(reader: asyncio.StreamReader, checks: CheckLoop[int]) -> bool:
    """Check every job sent until the end frame (True); False when the input just ends."""
    async with asyncio.TaskGroup() as group:
        running = group.create_task(checks.run())
        if not await _take_jobs(reader, checks):
            running.cancel()
            return False
        await checks.close()
    return True


async def _take_jobs(reader: asyncio.StreamReader, checks: CheckLoop[int]) -> bool:
    """Queue the jobs of each frame: True at the end frame, False when the input just ends."""
    while True:
        try:
            jobs = await read_frame(reader)
        except EOFError:
            return False
        if jobs is None:
            return True
        assert isinstance(jobs, list)
        for ident, loc, origin, validators in jobs:
            await checks.put(ident, loc, origin, validators)


if __name__ == "__main__":
    main()
