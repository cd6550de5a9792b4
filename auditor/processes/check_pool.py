"""Checker processes (`--workers N`): the URL stream sharded between child processes.

The audit's process reads and validates the sitemaps and keeps the only sink; each child
(`python -m auditor.processes.check_child`) runs its own event loop, client and limits (its share of
the run's, `shares.checker_configs`) and checks the jobs it is sent. They talk over the child's
stdin and stdout in frames (auditor.processes.frames).

Each job goes to the child with the fewest unanswered (at most a window each), so a child that
answers faster is sent more. A child that dies loses only the jobs it held: a new child takes
its place and its jobs (a job that was in flight in two children that died is answered
`internal.error`), up to MAX_RESTARTS_PER_CHILD new children a child; past that, the run fails.
A stop (the pool cancelled) tells each child to drop its checks in flight and send what it
answered (STOP_SIGNAL), and hands that to `keep` before the children go.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from auditor.checks.stage import Emit, Keep
from auditor.codes import Code
from auditor.config import AuditConfig
from auditor.errors import CheckerProcessError, FrameError
from auditor.models import CheckResult, Finding, NotIndexable, Redirect, Validators, finding
from auditor.net.address_guard import Reach
from auditor.processes.frame_stream import FrameReader
from auditor.processes.frames import frame

log = logging.getLogger(__name__)
K = TypeVar("K")
# Jobs a child may hold per request it may have in flight: its queue never runs dry while the
# next frame is on its way. A full child is refilled once it has room for a request slot's
# worth of jobs again: one frame per many jobs, never one per job.
WINDOW_PER_REQUEST = 3
SEND_BATCH = 256  # jobs per frame at most (fewer when no job is waiting)
CHILD_COMMAND: Sequence[str] = (sys.executable, "-m", "auditor.processes.check_child")
# New children started in place of ones that died, per child of the run: enough for a rare
# crash, too few to hide a checker that cannot run at all (that fails the run).
MAX_RESTARTS_PER_CHILD = 2
# A stop: what tells a child to send the checks it answered and end (it ignores SIGINT and
# SIGTERM, which reach the whole process group), and how long it has to.
STOP_SIGNAL = signal.SIGUSR1
STOP_GRACE_S = 5.0

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
class _Pending(Generic[K]):
    """A job sent to a child and not answered yet: enough to send it again."""

    key: K
    loc: str
    origin: str
    validators: Validators | None
    lost: int = 0  # children that died holding it


@dataclass(slots=True)
class _Shard(Generic[K]):
    """One child process, the jobs it has not answered yet, and those not sent yet.

    When its process dies, the shard stays, its jobs with it, and a new process takes over.
    """

    number: int
    config: AuditConfig
    process: asyncio.subprocess.Process
    frames: FrameReader  # of its stdout
    window: int  # jobs unanswered at most
    refill: int  # once full, jobs answered before it is sent more
    pending: dict[int, _Pending[K]] = field(default_factory=dict)
    unsent: list[Job] = field(default_factory=list)
    restarting: bool = False  # its process died; jobs wait in `unsent` for the next one
    ended: bool = False  # its end frame is written


class CheckPool(Generic[K]):
    """Checks jobs (key, URL, origin, validators) in child processes; (key, result) to `emit`."""

    def __init__(
        self,
        configs: Sequence[AuditConfig],
        *,
        reach: Reach,
        emit: Emit[K],
        keep: Keep[K] | None = None,
        command: Sequence[str] | None = None,
    ) -> None:
        """One child per configuration (`shares.checker_configs`); `command` starts a child.

        `emit`: where answers go (it takes each batch before it waits); `keep`: where a stop's
        go, at once (None: a stop drops them).
        """
        self._configs = configs
        self._reach = reach
        self._emit = emit
        self._keep = keep
        self._command = command or CHILD_COMMAND
        self._shards: list[_Shard[K]] = []
        self._started = asyncio.Event()
        self._room = asyncio.Event()  # set when a child answered: its window has room again
        self._next_id = 0
        self._closing = False  # no more jobs: each child gets its end frame
        self._restarts_left = MAX_RESTARTS_PER_CHILD * len(configs)

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
        shard.pending[ident] = _Pending(key, loc, origin, validators)
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
        if shard.unsent and not shard.restarting and shard.process.stdin is not None:
            shard.process.stdin.write(frame(shard.unsent))
            shard.unsent = []

    async def close(self) -> None:
        """No more jobs: each child answers what it holds, then exits."""
        await self._started.wait()
        self._closing = True
        for shard in list(self._shards):
            if not shard.restarting:  # else its next process gets the end frame at its start
                await self._end(shard)

    async def _end(self, shard: _Shard[K]) -> None:
        """Send what the child has left to send, then the end frame; close its input."""
        self._send(shard)
        shard.ended = True
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
        except BaseException:
            if self._keep is not None:
                await self._last_answers(self._keep)
            raise
        finally:
            for shard in self._shards:
                await _stop(shard.process)

    async def _last_answers(self, keep: Keep[K]) -> None:
        """The run stops: each child sends what it answered, and ends; `keep` takes it all.

        Within STOP_GRACE_S: a child that takes longer is killed with what it holds.
        """
        for shard in self._shards:
            if shard.process.returncode is None and not shard.restarting:
                with contextlib.suppress(ProcessLookupError):
                    shard.process.send_signal(STOP_SIGNAL)
        try:
            async with asyncio.timeout(STOP_GRACE_S):
                for shard in self._shards:
                    while (pairs := await self._next_answers(shard)) is not None:
                        keep(pairs)
        except TimeoutError:
            log.warning("checker processes took over %.0f s to stop", STOP_GRACE_S)

    async def _start(self, number: int, config: AuditConfig) -> _Shard[K]:
        process = await self._spawn(config)
        window = WINDOW_PER_REQUEST * config.concurrency
        return _Shard(
            number, config, process, _frames(process), window=window, refill=config.concurrency
        )

    async def _spawn(self, config: AuditConfig) -> asyncio.subprocess.Process:
        process = await asyncio.create_subprocess_exec(
            *self._command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        assert process.stdin is not None
        setup = CheckerSetup(config, self._reach, logging.getLogger().getEffectiveLevel())
        process.stdin.write(frame(setup))
        return process

    async def _receive(self, shard: _Shard[K]) -> None:
        """Take the child's answers until it ends; put a new child in place of one that died."""
        while True:
            await self._answers(shard)
            code = await shard.process.wait()
            if shard.ended and not shard.pending:  # told to end, and it answered everything
                if code:
                    log.warning("checker process %d exited with code %s", shard.number + 1, code)
                return
            await self._restart(shard, code)

    async def _answers(self, shard: _Shard[K]) -> None:
        while (pairs := await self._next_answers(shard)) is not None:
            self._room.set()
            await self._emit(pairs)

    async def _next_answers(self, shard: _Shard[K]) -> list[tuple[K, CheckResult]] | None:
        """The child's next frame of answers; None once its output ends."""
        try:
            packed = await shard.frames.read()
        except (EOFError, FrameError):  # a frame broken off: the child died writing it
            return None
        assert isinstance(packed, list)
        pending = shard.pending
        pairs = []
        for item in packed:
            ident, result = unpack_result(item)
            pairs.append((pending.pop(ident).key, result))
        return pairs

    async def _restart(self, shard: _Shard[K], code: int) -> None:
        """A new child in place of `shard`'s, with the jobs the dead one held.

        A job it had in flight was maybe what killed it: it is sent once more, and a job that
        was in flight in a child that died before is answered internal.error instead.
        """
        if self._restarts_left <= 0:
            raise CheckerProcessError(
                f"checker process {shard.number + 1} exited with code {code}, "
                f"{len(shard.pending)} URLs unanswered, and checkers died too often to go on"
            )
        self._restarts_left -= 1
        shard.restarting = True
        log.warning(
            "checker process %d exited with code %s, %d URLs unanswered: a new one checks them",
            shard.number + 1, code, len(shard.pending),
        )  # fmt: skip
        unsent = {job[0] for job in shard.unsent}
        given_up: list[tuple[K, CheckResult]] = []
        for ident, job in list(shard.pending.items()):
            if ident not in unsent:  # in flight in the dead child
                job.lost += 1
            if job.lost > 1:
                del shard.pending[ident]
                given_up.append((job.key, _lost_twice(job.loc)))
        shard.unsent = [
            (ident, job.loc, job.origin, job.validators) for ident, job in shard.pending.items()
        ]
        shard.process = await self._spawn(shard.config)
        shard.frames = _frames(shard.process)
        shard.restarting = False
        if self._closing:
            await self._end(shard)
        else:
            self._send(shard)
        self._room.set()
        if given_up:
            await self._emit(given_up)


def _frames(process: asyncio.subprocess.Process) -> FrameReader:
    assert process.stdout is not None
    return FrameReader(process.stdout)


def _lost_twice(loc: str) -> CheckResult:
    """The answer to a job that two checker processes died holding: perhaps what kills them."""
    error = "two checker processes died while checking it"
    found = (finding(Code.INTERNAL_ERROR, url=loc, error=error),)
    return CheckResult(None, findings=found, not_indexable=NotIndexable.NO_RESPONSE)


async def _stop(process: asyncio.subprocess.Process) -> None:
    """End a child that is still running (a stopped or failed run) and reap it."""
    if process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
    await process.wait()
