"""libcurl's multi handle run by one thread of its own, for the event loop (the curl transport).

The loop thread prepares an easy handle and posts it; the multi's thread adds it, drives every
transfer (curl_multi_perform, then select() on libcurl's sockets and a wake-up pipe, written
while it sleeps, so that a post is taken at once) and hands finished ones back in batches, one
loop wake-up per batch. Measured against driving the multi from the loop itself (socket and
timer callbacks on add_reader/call_later): 8-10% more URLs/s with the auditor's work beside it,
and again later, 15.2 s against 16.7 s for 200k URLs with two checkers
(benchmarks/journal/journal.md). Only the multi's thread touches the multi; a handle belongs to
that thread from its post until it comes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import select
import threading
from collections import deque
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

import pycurl

log = logging.getLogger(__name__)
# The longest wait on libcurl's sockets when libcurl names no timeout of its own: a backstop
# for a socket curl_multi_fdset cannot report (a descriptor past FD_SETSIZE, 1024).
MAX_WAIT_S = 0.05
_DRAIN_BYTES = 4096  # wake-up bytes read at once (one per loop turn that posted)


class Transfer(Protocol):
    """An easy handle and what to do once its transfer ends."""

    @property
    def curl(self) -> Any:  # pycurl.Curl: pycurl ships no types
        """The easy handle, options set."""

    def finish(self, code: int, message: str) -> None:
        """Read what the transfer left (in the multi's thread, the handle out of the multi)."""


T = TypeVar("T", bound=Transfer)
_Item = tuple[T, "asyncio.Future[None]"]


class CurlMulti(Generic[T]):
    """One multi handle and its thread; `run()` one transfer at a time per handle."""

    def __init__(self, *, per_host: int, concurrency: int, release: Callable[[T], None]) -> None:
        """`release`: takes back a handle whose request was cancelled, once the thread let go."""
        multi = pycurl.CurlMulti()
        # Backstops above the run's own limits (the host gate, the check workers): libcurl
        # queues what exceeds them, and CURLOPT_TIMEOUT_MS would count that time too.
        multi.setopt(pycurl.M_MAX_HOST_CONNECTIONS, per_host)
        multi.setopt(pycurl.M_MAX_TOTAL_CONNECTIONS, concurrency)
        multi.setopt(pycurl.M_MAXCONNECTS, concurrency)  # idle connections kept for reuse
        multi.setopt(pycurl.M_PIPELINING, pycurl.PIPE_MULTIPLEX)  # HTTP/2 streams share one
        self._multi = multi
        self._release = release
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        # curl_multi_wakeup is not in pycurl: a pipe the thread's select() also waits on.
        self._wake_read, self._wake_write = os.pipe()
        for end in (self._wake_read, self._wake_write):
            os.set_blocking(end, False)
        # No lock between the threads: a thread waiting on one while the other held it and
        # the GIL cost 5% of a checker's loop (py-spy). deque's append and popleft are atomic.
        # The loop writes a wake-up byte only while the thread sleeps in select(): each write
        # gives the GIL to the woken thread, and a busy thread looks at `_posted` before it
        # sleeps. Both flags are read and written under the GIL, so one of the two always sees
        # the other's step: a post is never left waiting.
        self._posted: deque[tuple[bool, _Item[T]]] = deque()  # (add, item)
        self._sleeping = False  # the thread is in (or about to enter) select()
        self._wake_due = False  # a wake-up is scheduled on the loop (loop thread)
        self._stopping = False  # set once, by the loop thread
        self._failed = False  # the thread died of a bug: no transfer can run (loop thread)
        self._waiting: set[asyncio.Future[None]] = set()  # loop thread only

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start the multi's thread, which hands results to `loop`."""
        self._loop = loop
        self._thread = threading.Thread(target=self._run, name="curl-multi", daemon=True)
        self._thread.start()

    async def stop(self) -> None:
        """Stop the thread: transfers removed, connections closed, waiting callers cancelled."""
        self._post(add=False, item=None)
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join)
            self._thread = None
        for future in self._waiting:
            future.cancel()
        self._waiting.clear()

    async def run(self, transfer: T) -> None:
        """Perform one transfer; `transfer.finish` has been called when this returns."""
        assert self._loop is not None, "start() first"
        if self._failed:
            raise RuntimeError("the libcurl thread failed")
        future: asyncio.Future[None] = self._loop.create_future()
        self._waiting.add(future)
        self._post(add=True, item=(transfer, future))
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self._release(transfer)  # it came back as the caller was cancelled
            else:
                future.cancel()
                self._post(add=False, item=(transfer, future))  # the thread gives it back
            raise
        finally:
            self._waiting.discard(future)

    def _post(self, *, add: bool, item: _Item[T] | None) -> None:
        """Hand the thread a handle to add or remove, or (None) the stop.

        The posts of one turn of the loop wake the thread once, at the end of the turn.
        """
        if item is None:
            self._stopping = True
            self._wake()
            return
        self._posted.append((add, item))
        if not self._wake_due:
            assert self._loop is not None
            self._wake_due = True
            self._loop.call_soon(self._wake)

    def _wake(self) -> None:
        self._wake_due = False
        if self._sleeping or self._stopping:
            with contextlib.suppress(BlockingIOError):  # full: bytes are there already
                os.write(self._wake_write, b"\0")

    def _deliver(self, batch: list[_Item[T]]) -> None:
        """In the loop: wake each caller; take back the handles of cancelled ones."""
        for transfer, future in batch:
            if future.cancelled():
                self._release(transfer)
            else:
                future.set_result(None)

    def _run(self) -> None:
        """The multi's thread: add, perform, collect, wait; until stopped."""
        running: dict[Any, _Item[T]] = {}
        try:
            while self._take(running):
                if running:
                    self._multi.perform()
                    finished = self._collect(running)
                    if finished:
                        self._send(finished)
                self._wait(running)
        except Exception:  # a bug here would leave every caller waiting: fail them all
            log.exception("the libcurl thread failed")
            self._call(self._fail_all)
        finally:
            for curl in running:
                self._multi.remove_handle(curl)
            self._multi.close()  # closes every connection it kept
            os.close(self._wake_read)
            os.close(self._wake_write)

    def _wait(self, running: dict[Any, _Item[T]]) -> None:
        """Sleep until one of libcurl's sockets is ready, its timeout is due, or a post comes."""
        reading, writing, failing = self._multi.fdset() if running else ([], [], [])
        due_ms = self._multi.timeout() if running else -1  # -1: libcurl has no timer set
        due_s = (MAX_WAIT_S if running else None) if due_ms < 0 else due_ms / 1000
        if due_s == 0:
            return
        self._sleeping = True
        if self._posted or self._stopping:  # posted while this thread was busy: no byte came
            self._sleeping = False
            return
        ready, _, _ = select.select([*reading, self._wake_read], writing, failing, due_s)
        self._sleeping = False
        if self._wake_read in ready:
            with contextlib.suppress(BlockingIOError):
                os.read(self._wake_read, _DRAIN_BYTES)

    def _take(self, running: dict[Any, _Item[T]]) -> bool:
        """Apply what the loop posted; False once stopping."""
        if self._stopping:
            return False
        posted = self._posted
        dropped: list[_Item[T]] = []
        while posted:
            add, item = posted.popleft()
            transfer, future = item
            curl = transfer.curl
            if add:
                running[curl] = item
                self._multi.add_handle(curl)
            elif (entry := running.get(curl)) is not None and entry[1] is future:
                del running[curl]
                self._multi.remove_handle(curl)
                dropped.append(item)
        if dropped:
            self._send(dropped)
        return True

    def _collect(self, running: dict[Any, _Item[T]]) -> list[_Item[T]]:
        """The transfers that ended, out of the multi, each `finish`ed."""
        finished: list[_Item[T]] = []
        while True:
            queued, ended, failed = self._multi.info_read()
            finished += [self._ended(running, curl, 0, "") for curl in ended]
            finished += [self._ended(running, curl, code, text) for curl, code, text in failed]
            if not queued:
                return finished

    def _ended(self, running: dict[Any, _Item[T]], curl: Any, code: int, message: str) -> _Item[T]:
        item = running.pop(curl)
        self._multi.remove_handle(curl)
        item[0].finish(code, message)
        return item

    def _send(self, batch: list[_Item[T]]) -> None:
        """Hand a batch to the loop: one wake-up."""
        self._call(self._deliver, batch)

    def _call(self, function: Callable[..., None], *args: object) -> None:
        assert self._loop is not None
        try:
            self._loop.call_soon_threadsafe(function, *args)
        except RuntimeError:  # the loop closed first: nobody is left to tell
            return

    def _fail_all(self) -> None:
        """In the loop: every caller gets an error (an internal one: the checker reports it)."""
        self._failed = True
        for future in self._waiting:
            if not future.done():
                future.set_exception(RuntimeError("the libcurl thread failed"))


def trace_transfer(curl: Any, code: int, total_s: float) -> None:
    """-vv: one transfer's phases (libcurl's timers, microseconds from its start) and reuse."""
    phases = {
        "dns": pycurl.NAMELOOKUP_TIME_T,
        "connect": pycurl.CONNECT_TIME_T,
        "tls": pycurl.APPCONNECT_TIME_T,
        "first byte": pycurl.STARTTRANSFER_TIME_T,
    }
    said = ", ".join(f"{name} {curl.getinfo(key) / 1000:.1f} ms" for name, key in phases.items())
    new_connections = curl.getinfo(pycurl.NUM_CONNECTS)
    url = curl.getinfo(pycurl.EFFECTIVE_URL)
    log.debug(
        "libcurl %s: code %d, %s, total %.1f ms, %d new connection(s)",
        url, code, said, total_s * 1000, new_connections,
    )  # fmt: skip
