"""A parse helper (`--workers N` with `--no-check`): documents in on stdin, entries out on stdout.

Started by the audit's process only (`parse_pool`). It reads one document at a time: a
DocumentSpec frame, the body's chunks (b"" at its end), then None. It answers each piece's
validated entries, "stopped" once the document wants no more input, then Ended. It needs no event
loop: it blocks on its stdin, and ends at its end (the parent closed it, or died). It ignores
SIGINT and SIGTERM: the parent decides how the run ends.
"""

from __future__ import annotations

import os
import signal
from typing import BinaryIO

from auditor.processes.frames import frame, read_frame_blocking
from auditor.sitemap.validated_entries import (
    STOPPED,
    DocumentSpec,
    DocumentValidator,
    Ended,
    pack_piece,
)


def main() -> None:
    """Parse documents until stdin ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    documents = os.fdopen(os.dup(0), "rb")
    entries = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # a stray print must not corrupt the frames
    try:
        while True:
            try:
                spec = read_frame_blocking(documents)
            except EOFError:
                return
            assert isinstance(spec, DocumentSpec)
            _parse(spec, documents, entries)
    except BrokenPipeError:  # the parent went away: nobody is left to read the answers
        return


def _parse(spec: DocumentSpec, documents: BinaryIO, entries: BinaryIO) -> None:
    """One document: its chunks until None, answered piece by piece."""
    validator = DocumentValidator(spec)
    while (chunk := read_frame_blocking(documents)) is not None:
        assert isinstance(chunk, bytes)
        wanted = not validator.stopped  # else sent before the parent heard "stopped"
        if not wanted:
            continue
        for piece in validator.feed(chunk) if chunk else validator.close():
            entries.write(frame(pack_piece(piece)))
        if validator.stopped:
            entries.write(frame(STOPPED))
    ended = Ended(validator.parsed_bytes, validator.compressed, validator.fingerprint)
    entries.write(frame(ended))


if __name__ == "__main__":
    main()
