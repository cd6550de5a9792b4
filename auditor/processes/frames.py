"""Frames between the audit's process and its helpers: a 4-byte length, then a pickle.

The parse helpers (`parse_pool`, with `--no-check`) talk over their stdin and stdout this
way. Only our own processes' frames are ever unpickled. Reading them
from an asyncio stream is `frame_stream`'s: a parse helper blocks on its stdin and does without
asyncio (3 MB of RSS each).
"""

from __future__ import annotations

import pickle
import struct
from typing import BinaryIO

from auditor.errors import FrameError

LENGTH = struct.Struct(">I")  # of the pickle that follows


def frame(payload: object) -> bytes:
    """One frame: the length of the pickle, then the pickle."""
    data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    return LENGTH.pack(len(data)) + data


def read_frame_blocking(stream: BinaryIO) -> object:
    """The next frame from a blocking stream (exactly its bytes); EOFError at the end."""
    head = _read_exactly(stream, LENGTH.size)
    if head is None:
        raise EOFError
    data = _read_exactly(stream, LENGTH.unpack(head)[0])
    if data is None:
        raise FrameError("a frame broke off")
    return pickle.loads(data)  # noqa: S301 - our parent's frame


def _read_exactly(stream: BinaryIO, size: int) -> bytes | None:
    """`size` bytes; None when the stream ends first (at once, or part-way)."""
    parts: list[bytes] = []
    missing = size
    while missing:
        part = stream.read(missing)
        if not part:
            if parts:
                raise FrameError("a frame broke off")
            return None
        parts.append(part)
        missing -= len(part)
    return b"".join(parts)
