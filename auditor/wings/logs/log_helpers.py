"""Helper processes for big logs (`--workers`): they empty the plain lines, this one reads the rest.

Most of a log's cost is checking every line against its format; a helper process
(`python -m auditor.wings.logs.log_helper_child`) does that for a block of lines (one regular
expression call, log_feed.clean_block) while this process reads what the helpers left of the
blocks before: the claims and the bad lines. Blocks go round the helpers and come back in order,
a few in flight at most: the tally is the one the same blocks give in one process. Used for
files of a text format of a few megabytes or more; the helpers end when the logs are read.
Blocking: the logs are read in a thread of their own.
"""

from __future__ import annotations

import contextlib
import queue
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable
from typing import IO, BinaryIO, cast

from auditor.errors import FrameError
from auditor.processes.frames import LENGTH, read_frame_blocking
from auditor.wings.logs.log_formats import LogFormat

IN_FLIGHT = 3  # blocks a helper holds at most (being sent, cleaned, answered), for memory
HELPED_BYTES = 4 << 20  # a file smaller than this is read in this process alone
_STOP_S = 5.0
Take = Callable[[bytes, tuple[bytes, int]], None]


class LogHelperError(RuntimeError):
    """A log helper process ended before it answered every block sent."""


class _Helper:
    """One helper process; its answers read by a thread of ours as they come."""

    def __init__(self, fmt: LogFormat) -> None:
        command = [sys.executable, "-m", "auditor.wings.logs.log_helper_child", fmt.value]
        self.process = subprocess.Popen(  # noqa: S603 - our own module, this interpreter
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.answers: deque[tuple[bytes, int] | None] = deque()  # None: it ended
        self.ready = threading.Condition()
        # Blocks wait here for a thread of ours to write them: the reading goes on meanwhile.
        self._outbox: queue.Queue[bytes | None] = queue.Queue(maxsize=IN_FLIGHT)
        self._broken = False
        self._threads = [
            threading.Thread(target=self._read, name="sitemap-audit-log-helper", daemon=True),
            threading.Thread(target=self._write, name="sitemap-audit-log-helper", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def send(self, block: bytes) -> None:
        if self._broken:
            raise LogHelperError("a log helper process ended")
        self._outbox.put(block)

    def _write(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        while (block := self._outbox.get()) is not None:
            try:
                stdin.write(LENGTH.pack(len(block)))  # the block as it is: no copy of a pickle
                stdin.write(block)
                stdin.flush()
            except OSError:  # it ended: its answers end too, and the reading says so
                self._broken = True
                return
        with contextlib.suppress(OSError):
            stdin.close()

    def answer(self) -> tuple[bytes, int]:
        with self.ready:
            while not self.answers:
                self.ready.wait()
            found = self.answers.popleft()
        if found is None:
            raise LogHelperError("a log helper process ended")
        return found

    def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        found: tuple[bytes, int] | None = None
        while True:
            found = _answer_of(stdout)
            with self.ready:
                self.answers.append(found)
                self.ready.notify()
            if found is None:
                return

    def close(self) -> None:
        with contextlib.suppress(queue.Full):
            self._outbox.put(None, timeout=_STOP_S)  # the writer closes its stdin
        try:
            self.process.wait(_STOP_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        for thread in self._threads:
            thread.join(_STOP_S)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


def _answer_of(stdout: IO[bytes]) -> tuple[bytes, int] | None:
    """The next answer (left, plain lines); None once the helper's output ends."""
    try:
        item = read_frame_blocking(cast("BinaryIO", stdout))
    except (EOFError, FrameError, OSError):
        return None
    assert isinstance(item, tuple)
    left, plain = item
    assert isinstance(left, bytes)
    assert isinstance(plain, int)
    return left, plain


class LineHelpers:
    """`count` helper processes for one text format, fed blocks, giving answers in order."""

    def __init__(self, fmt: LogFormat, count: int) -> None:
        self.format = fmt
        self._helpers = [_Helper(fmt) for _ in range(count)]
        self._pending: deque[tuple[bytes, _Helper]] = deque()
        self._next = 0

    def put(self, block: bytes, take: Take) -> None:
        """Send `block` to a helper; hand the oldest answers to `take` while too many wait."""
        helper = self._helpers[self._next]
        self._next = (self._next + 1) % len(self._helpers)
        helper.send(block)
        self._pending.append((block, helper))
        while len(self._pending) >= IN_FLIGHT * len(self._helpers):
            self._take_one(take)

    def drain(self, take: Take) -> None:
        """Every block sent: its answers to `take`, in order."""
        while self._pending:
            self._take_one(take)

    def _take_one(self, take: Take) -> None:
        block, helper = self._pending.popleft()
        take(block, helper.answer())

    def close(self) -> None:
        """End the helpers (stdin closed; killed when they linger)."""
        self._pending.clear()
        for helper in self._helpers:
            helper.close()
