"""Where a document is parsed and validated: in a parse helper when one is free, else here.

With `--workers N` and `--no-check`, the cores are not needed for checks, and parsing is most
of a run's CPU (about 20 of 28 µs a URL, measured). The audit's process keeps the fetching and
every piece of the run's state (tree, dedup, tallies, sink) and parses a share of the
documents itself; N helpers (`python -m auditor.processes.parse_child`) each parse one document
at a time. A document goes to a free helper, else is parsed here within that share. With the
default `--workers` (the cores), one process more than the cores: the system's scheduler keeps
them busy whichever of them waits.

The body goes to the helper in frames (`frames`) as it arrives; the helper answers with the
validated entries of each piece, "stopped" once it wants no more input, and the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import AsyncIterator, Sequence
from typing import Literal

from auditor.errors import FrameError, ParseHelperError
from auditor.processes.frame_stream import read_frame
from auditor.processes.frames import frame
from auditor.sitemap.parsers import BodyRead, Handle, Parse, Read, parse_here
from auditor.sitemap.validated_entries import (
    STOPPED,
    DocumentSpec,
    Ended,
    unpack_piece,
)

log = logging.getLogger(__name__)
HELPER_COMMAND: Sequence[str] = (sys.executable, "-m", "auditor.processes.parse_child")
# A helper's answers may wait in this process's buffer up to twice this while it is busy: about
# a thousand entries, enough for the helper to run on while this process parses a piece of its
# own (1 MiB cost 4 MB of peak RSS at 1M URLs with two helpers and ran no faster).
HELPER_BUFFER_BYTES = 1 << 18


class _Helper:
    """One parse helper process, reading one document at a time."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.usable = True  # false once a document was left midway: its state is unknown

    async def parse(self, spec: DocumentSpec, read: Read, handle: Handle, body: BodyRead) -> None:
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None
        assert stdout is not None
        stdin.write(frame(spec))
        sending = asyncio.create_task(self._send(stdin, read, body))
        self.usable = False
        try:
            while True:
                try:
                    item = await read_frame(stdout)
                except (EOFError, FrameError) as exc:
                    raise ParseHelperError(f"a parse helper ended: {exc!r}") from None
                if isinstance(item, list):
                    await handle(unpack_piece(item))
                elif item == STOPPED:
                    sending.cancel()  # may be waiting for a slow body: none of it is wanted
                else:
                    assert isinstance(item, Ended)
                    body.bytes, body.compressed = item.bytes, item.compressed
                    body.fingerprint = item.fingerprint
                    break
            self.usable = True
        finally:
            sending.cancel()
        if not sending.cancelled():
            sending.result()  # the body's own failure (FetchError, OSError) is the document's

    async def _send(self, stdin: asyncio.StreamWriter, read: Read, body: BodyRead) -> None:
        """The body, chunk by chunk (b"" its end), then None: the document is over."""
        try:
            while True:
                chunk = await read()
                body.ended = not chunk
                stdin.write(frame(chunk))
                if not chunk:
                    return
                try:
                    await stdin.drain()
                except ConnectionError:
                    return  # the helper is gone: its stdout says so
        finally:
            if not stdin.is_closing():
                stdin.write(frame(None))

    async def stop(self) -> None:
        """End the process: its stdin closed, it exits; killed if it does not at once."""
        stdin = self.process.stdin
        if stdin is not None and not stdin.is_closing():
            stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), timeout=2)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            await self.process.wait()


class ParsePool:
    """Where documents are parsed: `helpers` helper processes and this one, a document each.

    With no helper, this process parses every document being read (--sitemap-concurrency).
    With helpers, a reader takes a parser before it even asks for the document (waiting while
    none is free), so that no answer waits unread long enough to time out. Each helper is one
    parser, this process one more: it also handles every helper's entries, so it takes at most
    one document in 2N + 1 with N helpers alive (parsing a URL costs about twice what handling
    it does: past that share, the helpers would wait for it, and at the end of a run it would
    parse a last document alone).
    """

    def __init__(self, helpers: int, *, command: Sequence[str] | None = None) -> None:
        self._wanted = helpers
        self._command = command or HELPER_COMMAND
        self._helpers: list[_Helper] = []
        # Free parsers, taken from the end: the helpers first. None: this process.
        self._free: list[_Helper | None] = []
        self._freed = asyncio.Event()
        self._alive = 0  # helpers not given up on
        self._taken_here = 0  # documents taken by this process
        self._taken_by_helpers = 0

    async def __aenter__(self) -> ParsePool:
        for _ in range(self._wanted):
            try:
                process = await asyncio.create_subprocess_exec(
                    *self._command,
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    limit=HELPER_BUFFER_BYTES,
                )
            except OSError as exc:  # no process to spare: this one parses alone
                log.warning("cannot start a parse helper (%s); parsing in this process", exc)
                break
            self._helpers.append(_Helper(process))
        if self._helpers:
            self._free = [None, *self._helpers]
            self._alive = len(self._helpers)
        return self

    async def __aexit__(self, *_: object) -> None:
        for helper in self._helpers:
            if helper.process.returncode is None and not helper.usable:
                with contextlib.suppress(ProcessLookupError):
                    helper.process.kill()  # stopped in the middle of a document
            await helper.stop()

    @contextlib.asynccontextmanager
    async def parser(self) -> AsyncIterator[Parse]:
        """A parser to read one document with: a free helper, else this process."""
        if not self._helpers:
            yield parse_here
            return
        while (taken := self._take()) is False:
            self._freed.clear()
            await self._freed.wait()
        try:
            yield parse_here if taken is None else taken.parse
        finally:
            if taken is None:
                self._free.insert(0, None)
            elif taken.usable:
                self._free.append(taken)
            else:  # stopped or failed midway: not reused
                self._alive -= 1
                if taken.process.returncode is None:
                    with contextlib.suppress(ProcessLookupError):
                        taken.process.kill()
            self._freed.set()

    def _take(self) -> _Helper | Literal[False] | None:
        """A free helper, else this process when its share allows; False: wait."""
        free = self._free
        if free and free[-1] is not None:
            self._taken_by_helpers += 1
            return free.pop()
        if None in free and self._taken_here * 2 * self._alive <= self._taken_by_helpers:
            self._taken_here += 1
            free.remove(None)
            return None
        return False
