"""The keys of the pages Googlebot fetched, on disk until the end of the run.

Which of them no sitemap lists is known only once every sitemap is read; the few to show (the
most crawled) are then looked up by one pass over this file. An anonymous temporary file:
nothing is left behind, whatever ends the run. Blocking: the run calls it in a thread.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Set
from typing import IO

_FLUSH_BYTES = 1 << 20


class UrlSpool:
    """(digest, key) lines, appended; `find` reads the keys of a few digests back."""

    def __init__(self) -> None:
        self._file: IO[bytes] = tempfile.TemporaryFile(prefix="sitemap-audit-logs-")  # noqa: SIM115 - closed by close()
        self._buffer = bytearray()

    def add(self, keys: Iterable[tuple[int, str]]) -> None:
        """Keep these keys."""
        buffer = self._buffer
        for digest, key in keys:
            buffer += b"%016x %s\n" % (digest, key.encode("utf-8", "replace"))
        if len(buffer) >= _FLUSH_BYTES:
            self._file.write(buffer)
            buffer.clear()

    def find(self, digests: Set[int]) -> dict[int, str]:
        """The keys of `digests` (those it holds)."""
        if not digests:
            return {}
        self._file.write(self._buffer)
        self._buffer.clear()
        self._file.seek(0)
        wanted = {b"%016x" % digest for digest in digests}
        found = {}
        for line in self._file:
            if line[:16] in wanted:
                found[int(line[:16], 16)] = line[17:].rstrip(b"\n").decode("utf-8", "replace")
        self._file.seek(0, 2)
        return found

    def close(self) -> None:
        """Let the file go (the system removes it)."""
        self._file.close()
