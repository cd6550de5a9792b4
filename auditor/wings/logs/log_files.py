"""The access logs' bytes: files, folders, globs and stdin, gzip read as a stream.

Each file's format is found from its first lines before any file is read through, so that a
file that is no log is said at once (AccessLogError, exit 2, naming it). A gzip file (its magic
bytes, whatever its name) is inflated as it is read, member after member; one that ends early
(a rotation caught mid-write) or breaks off is read up to there and said to be truncated.
Blocking: the run calls `read_logs` in a thread.
"""

from __future__ import annotations

import contextlib
import glob
import queue
import re
import sys
import threading
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from auditor.errors import UsageError
from auditor.wings.logs.log_feed import FileStats, LogFeed, LogRun
from auditor.wings.logs.log_formats import SNIFF_LINES, LogFormat, sniff_format
from auditor.wings.logs.log_helpers import HELPED_BYTES, LineHelpers
from auditor.wings.logs.log_settings import STDIN

CHUNK_BYTES = 1 << 20  # read (and inflated) at a time
SNIFF_BYTES = 1 << 20  # a file's format is judged on its lines within this much
_INFLATE_BYTES = 64 * 1024  # compressed bytes inflated at a time: a break loses less
_GZIP_MAGIC = b"\x1f\x8b"  # RFC 1952 §2.3.1
_GLOB = re.compile(r"[*?\[]")


class AccessLogError(UsageError):
    """An `--access-log` that cannot be read as one: missing, unreadable, or not a log."""


class StopReading(Exception):  # noqa: N818 - a signal, not an error
    """The run was stopped while its logs were read."""


@dataclass(frozen=True, slots=True)
class LogSource:
    """One file to read; `path` None for stdin."""

    label: str
    path: Path | None


def expand_sources(given: Sequence[Path]) -> list[LogSource]:
    """The files each `--access-log` names, in order, each once (AccessLogError: none)."""
    sources: list[LogSource] = []
    seen: set[Path] = set()
    for path in given:
        if path == STDIN:
            sources.append(LogSource("-", None))
            continue
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
            what = "a folder with no file in it"
        elif path.is_file():
            found = [path]
        elif _GLOB.search(str(path)):
            # glob.glob, not Path.glob: the pattern may be absolute (/var/log/nginx/*.gz)
            found = sorted(Path(p) for p in glob.glob(str(path)) if Path(p).is_file())  # noqa: PTH207
            what = "a pattern that matches no file"
        else:
            raise AccessLogError(f"--access-log {path}: no such file, folder or pattern")
        if not found:
            raise AccessLogError(f"--access-log {path}: {what}")
        for file in found:
            if file.resolve() not in seen:
                seen.add(file.resolve())
                sources.append(LogSource(str(file), file))
    return sources


class Inflated:
    """A file's bytes in pieces of at most CHUNK_BYTES: inflated when they are gzip's."""

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self.truncated = False
        self.gzipped = False  # known once its first bytes are read

    def __iter__(self) -> Iterator[bytes]:
        first = self._raw.read(CHUNK_BYTES)
        self.gzipped = first.startswith(_GZIP_MAGIC)
        if not self.gzipped:
            yield first
            yield from iter(lambda: self._raw.read(CHUNK_BYTES), b"")
            return
        yield from self._inflate(first)

    def _inflate(self, first: bytes) -> Iterator[bytes]:
        inflate, member = zlib.decompressobj(wbits=31), True  # a member is under way
        data = first
        while True:
            while data:
                piece, data = data[:_INFLATE_BYTES], data[_INFLATE_BYTES:]
                try:
                    out = inflate.decompress(piece, CHUNK_BYTES)
                    while inflate.unconsumed_tail and not inflate.eof:  # output capped: go on
                        yield out
                        out = inflate.decompress(inflate.unconsumed_tail, CHUNK_BYTES)
                except zlib.error:
                    # Junk after a whole member (padding, a second file glued on) ends the file;
                    # a member that breaks off midway is truncated.
                    self.truncated = member
                    return
                if out:
                    yield out
                if inflate.eof:
                    data = inflate.unused_data + data
                    inflate = zlib.decompressobj(wbits=31)
                    member = data.startswith(_GZIP_MAGIC) if data else False
            data = self._raw.read(CHUNK_BYTES)
            if not data:
                self.truncated = member and not inflate.eof
                return
            member = member or not inflate.eof


def read_logs(
    sources: Sequence[LogSource],
    run: LogRun,
    *,
    given: LogFormat,
    stop: threading.Event,
    spool: Callable[[list[tuple[int, str]]], None],
    stats: list[FileStats],
    helpers: int = 0,
) -> None:
    """Read every source into `run`, each file's stats into `stats` (AccessLogError: no log).

    `spool` takes the keys of pages Google Search hit first, a block at a time; `helpers`:
    processes that check a big file's plain lines beside this one (auditor.wings.logs.log_helpers).
    """
    with ExitStack() as stack:
        opened = []
        for source in sources:  # every format found first: a bad file is said before any work
            inflated = Inflated(_open(source, stack))
            chunks = iter(inflated)
            head, lines = _head(chunks, source)
            found = sniff_format(lines, given=given) if lines else given  # empty: nothing to read
            if found is None:
                wanted = "an access log" if given is LogFormat.AUTO else f"a {given.value} log"
                raise AccessLogError(
                    f"--access-log {source.label}: not {wanted} (its first lines are none)"
                )
            opened.append((found, head, inflated, chunks))
        pools = _Pools(helpers)
        stack.callback(pools.close)
        for (found, head, inflated, chunks), source in zip(opened, sources, strict=True):
            feed = LogFeed(run, FileStats(source.label, found))
            stats.append(feed.stats)
            pool = pools.get(found) if feed.text and _big(source, inflated) else None
            ahead = _read_ahead(chunks, stop)
            _feed_all(feed, head, ahead, run=run, stop=stop, spool=spool, pool=pool)
            feed.close(truncated=inflated.truncated)


def _open(source: LogSource, stack: ExitStack) -> BinaryIO:
    if source.path is None:
        return sys.stdin.buffer
    try:
        return stack.enter_context(source.path.open("rb"))
    except OSError as exc:
        raise AccessLogError(
            f"--access-log {source.label}: cannot read it ({exc.strerror})"
        ) from None


def _head(chunks: Iterator[bytes], source: LogSource) -> tuple[bytes, list[bytes]]:
    """The file's first bytes, and the non-empty lines among them (SNIFF_LINES at most)."""
    head = b""
    try:
        for chunk in chunks:
            head += chunk
            if head.count(b"\n") > SNIFF_LINES or len(head) >= SNIFF_BYTES:
                break
    except OSError as exc:
        raise AccessLogError(
            f"--access-log {source.label}: cannot read it ({exc.strerror})"
        ) from None
    whole = head[: head.rfind(b"\n") + 1] if b"\n" in head else head
    lines = [line for line in whole.split(b"\n") if line.strip()][:SNIFF_LINES]
    return head, lines


def _feed_all(
    feed: LogFeed,
    head: bytes,
    chunks: Iterator[bytes],
    *,
    run: LogRun,
    stop: threading.Event,
    spool: Callable[[list[tuple[int, str]]], None],
    pool: LineHelpers | None,
) -> None:
    data: bytes | None = head
    try:
        while data is not None:
            if stop.is_set():
                raise StopReading
            for block in feed.blocks(data):
                if pool is None:
                    feed.take(block)
                else:
                    pool.put(block, feed.take)
            if run.new_keys:
                spool(run.new_keys)
                run.new_keys = []
            data = next(chunks, None)
    except OSError:  # the disk failed under the file: what was read counts, the rest not
        feed.stats.truncated = True
    finally:
        if pool is not None:
            pool.drain(feed.take)
    if run.new_keys:
        spool(run.new_keys)
        run.new_keys = []


def _big(source: LogSource, inflated: Inflated) -> bool:
    """Whether a file is worth helpers: stdin (its size unknown), or some megabytes of lines."""
    if source.path is None:
        return True
    try:
        size = source.path.stat().st_size
    except OSError:
        return False
    return size * (8 if inflated.gzipped else 1) >= HELPED_BYTES  # gzip: about 8 to 1


class _Pools:
    """The run's helper processes, for one text format at a time; none without `count`."""

    def __init__(self, count: int) -> None:
        self._count = count
        self._helpers: LineHelpers | None = None

    def get(self, fmt: LogFormat) -> LineHelpers | None:
        if not self._count:
            return None
        if self._helpers is not None and self._helpers.format is not fmt:
            self.close()
        if self._helpers is None:
            self._helpers = LineHelpers(fmt, self._count)
        return self._helpers

    def close(self) -> None:
        if self._helpers is not None:
            helpers, self._helpers = self._helpers, None
            helpers.close()


_AHEAD = 4  # pieces read (and inflated) ahead of the reading


def _read_ahead(chunks: Iterator[bytes], stop: threading.Event) -> Iterator[bytes]:
    """The pieces of `chunks`, read and inflated in a thread of their own, a few ahead.

    Reading and inflating release the GIL: the file's next megabytes come while its last ones
    are read through. An OSError of the reading is raised here, at its turn.
    """
    pieces: queue.Queue[bytes | OSError | None] = queue.Queue(maxsize=_AHEAD)
    done = threading.Event()  # the reading is over, or its reader went away

    def hand(piece: bytes | OSError | None) -> bool:
        while not (stop.is_set() or done.is_set()):
            with contextlib.suppress(queue.Full):
                pieces.put(piece, timeout=0.2)
                return True
        return False

    def read() -> None:
        try:
            for chunk in chunks:
                if not hand(chunk):
                    return
            hand(None)
        except OSError as exc:
            hand(exc)

    reader = threading.Thread(target=read, name="sitemap-audit-log-reader", daemon=True)
    reader.start()
    try:
        while (piece := pieces.get()) is not None:
            if isinstance(piece, OSError):
                raise piece
            yield piece
    finally:
        done.set()
        reader.join()
