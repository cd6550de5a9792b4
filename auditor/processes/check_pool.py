"""Checker processes (`--workers N`): the URL stream sharded between child processes.

The audit's process reads and validates the sitemaps and keeps the only sink; each child
(`python -m auditor.processes.check_child`) runs its own event loop, client and limits (its share of
the run's, `config.checker_configs`) and checks the jobs it is sent. They talk over the child's
stdin and stdout in frames (auditor.processes.frames).

Each job goes to the child with the fewest unanswered (at most a window each), so a child that
answers faster is sent more.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from auditor.config import AuditConfig
from auditor.errors import CheckerProcessError
from auditor.models import CheckResult, Finding, NotIndexable, Redirect, Validators
from auditor.net.address_guard import Reach
from auditor.processes.frame_stream import read_frame
from auditor.processes.frames import frame

log = logging.getLogger(__name__)
K = TypeVar("K")
# Jobs a child may hold per request it may have in flight: its queue never runs dry while the
# next frame is on its way. A full child is refilled once it has room for a request slot's
# worth of jobs again: one frame per many jobs, never one per job.
WINDOW_PER_REQUEST = 3
SEND_BATCH = 256  # jobs per frame at most (fewer when no job is waiting)
CHILD_COMMAND: Sequence[str] = (sys.executable, "-m", "auditor.processes.check_child")

# One job: (id, URL, origin, validators). One result: (id, then CheckResult's fields in order,
# up to what a check itself sets: `checked_at` and `carried` are the history's).
Job = tuple[int, str, str, Validators | None]
PackedResult = tuple[
    int,
    int | None,
    str | None,
    int | None,
    tuple[Redirect, ...],
    int | None,
    str | None,
    tuple[Finding, ...],
    str | None,
    NotIndexable | None,
    str | None,
    bool,
]


@dataclass(frozen=True, slots=True)
class CheckerSetup:
    """The first frame a child reads: its share of the run and how to behave."""

    config: AuditConfig
    reach: Reach
    log_level: int


def pack_result(ident: int, result: CheckResult) -> PackedResult:
    """A result as a plain tuple: a third of the pickle of the dataclass, and faster."""
    return (
        ident,
        result.status,
        result.final_url,
        result.final_status,
        result.redirects,
        result.elapsed_ms,
        result.method,
        result.findings,
        result.last_modified,
        result.not_indexable,
        result.etag,
        result.not_modified,
    )


def unpack_result(packed: PackedResult) -> tuple[int, CheckResult]:
    """The id and the result `pack_result` packed."""
    ident, status, final_url, final_status, redirects, elapsed_ms, method, findings = packed[:8]
    modified, reason, etag, not_modified = packed[8:]
    return ident, CheckResult(
        status,
        final_url,
        final_status,
        redirects,
        elapsed_ms,
        method,
        findings,
        modified,
        reason,
        etag,
        not_modified,
    )


@dataclass(slots=True)
class _Shard(Generic[K]):
    """One child process, the jobs it has not answered yet, and those not sent yet."""

    number: int
    process: asyncio.subprocess.Process
    window: int  # jobs unanswered at most
    refill: int  # once full, jobs answered before it is sent more
    pending: dict[int, K] = field(default_factory=dict)
    unsent: list[Job] = field(default_factory=list)


class CheckPool(Generic[K]):
    """Checks jobs (key, URL, origin, validators) in child processes; (key, result) to `emit`."""

    def __init__(
        self,
        configs: Sequence[AuditConfig],
        *,
        reach: Reach,
        emit: Callable[[list[tuple[K, CheckResult]]], Awaitable[None]],
        command: Sequence[str] | None = None,
    ) -> None:
        """One child per configuration (`config.checker_configs`); `command` starts a child."""
        self._configs = configs
        self._reach = reach
        self._emit = emit
        self._command = command or CHILD_COMMAND
        self._shards: list[_Shard[K]] = []
        self._started = asyncio.Event()
        self._room = asyncio.Event()  # set when a child answered: its window has room again
        self._next_id = 0

    async def put(
        self, key: K, loc: str, origin: str, validators: Validators | None = None
    ) -> None:
        """Give one job to the child with the fewest unanswered; waits while all are full.

        Jobs put in one go leave in one frame, at the loop's next turn.
        """
        if not self._started.is_set():
            await self._started.wait()
        shard = self._least_busy()
        if len(shard.pending) >= shard.window:
            while len(shard.pending) > shard.window - shard.refill:
                self._room.clear()
                await self._room.wait()
                shard = self._least_busy()
        ident = self._next_id
        self._next_id += 1
        shard.pending[ident] = key
        shard.unsent.append((ident, loc, origin, validators))
        if len(shard.unsent) == 1:
            asyncio.get_running_loop().call_soon(self._send, shard)
        elif len(shard.unsent) >= SEND_BATCH:
            self._send(shard)

    def _least_busy(self) -> _Shard[K]:
        best = self._shards[0]
        for shard in self._shards:
            if len(shard.pending) < len(best.pending):
                best = shard
        return best

    def _send(self, shard: _Shard[K]) -> None:
        """Write the child's unsent jobs as one frame (the window bounds what is buffered)."""
        if shard.unsent and shard.process.stdin is not None:
            shard.process.stdin.write(frame(shard.unsent))
            shard.unsent = []

    async def close(self) -> None:
        """No more jobs: each child answers what it holds, then exits."""
        await self._started.wait()
        for shard in self._shards:
            self._send(shard)
            stdin = shard.process.stdin
            assert stdin is not None
            stdin.write(frame(None))
            with contextlib.suppress(ConnectionError):  # a dead child: its receiver says so
                await stdin.drain()
            stdin.close()

    async def run(self) -> None:
        """Start the children and collect their answers; stop them on the way out."""
        try:
            for number, config in enumerate(self._configs):
                self._shards.append(await self._start(number, config))
            self._started.set()
            async with asyncio.TaskGroup() as group:
                for shard in self._shards:
                    group.create_task(self._receive(shard))
        finally:
            for shard in self._shards:
                await _stop(shard.process)

    async def _start(self, number: int, config: AuditConfig) -> _Shard[K]:
        process = await asyncio.create_subprocess_exec(
            *self._command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        assert process.stdin is not None
        setup = CheckerSetup(config, self._reach, logging.getLogger().getEffectiveLevel())
        process.stdin.write(frame(setup))
        window = WINDOW_PER_REQUEST * config.concurrency
        return _Shard(number, process, window=window, refill=config.concurrency)

    async def _receive(self, shard: _Shard[K]) -> None:
        stdout = shard.process.stdout
        assert stdout is not None
        while True:
            try:
                packed = await read_frame(stdout)
            except EOFError:
                break
            assert isinstance(packed, list)
            pending = shard.pending
            pairs = []
            for item in packed:
                ident, result = unpack_result(item)
                pairs.append((pending.pop(ident), result))
            self._room.set()
            await self._emit(pairs)
        code = await shard.process.wait()
        if code or shard.pending:
            raise CheckerProcessError(
                f"checker process {shard.number + 1} exited with code {code}, "
                f"{len(shard.pending)} URLs unanswered"
            )


async def _stop(process: asyncio.subprocess.Process) -> None:
    """End a child that is still running (a stopped or failed run) and reap it."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
    await process.wait()
