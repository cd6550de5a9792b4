"""Files replaced whole: a reader sees the old content or the new one, never half of it."""

from __future__ import annotations

import os
from pathlib import Path


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to a temporary file beside `path`, flush it to disk, rename it over `path`.

    Blocking: call it in a thread from the event loop. The rename is atomic on POSIX file
    systems; the fsync first makes sure a crash cannot leave the new name on empty content.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with temporary.open("wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        temporary.replace(path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
