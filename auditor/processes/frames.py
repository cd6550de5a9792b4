"""Frames between the audit's process and its helpers: a 4-byte length, then a pickle.

Both kinds of helper (checker processes, `check_pool`; parse helpers, `parse_pool`) talk over
their stdin and stdout this way. Only our own processes' frames are ever unpickled.
"""

from __future__ import annotations

import asyncio
import pickle
import struct
from typing import BinaryIO

from auditor.errors import FrameError

_LENGTH = struct.Struct(">I")


def frame(payload: object) -> bytes:
    """One frame: the length of the pickle, then the pickle."""
    data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    return _LENGTH.pack(len(data)) + data


async def read_frame(reader: asyncio.StreamReader) -> object:
    """The next frame's payload; EOFError when the stream ended between frames."""
    try:
        head = await reader.readexactly(_LENGTH.size)
    except asyncio.IncompleteReadError as exc:
        if exc.partial:
            raise FrameError("a frame broke off in its length") from exc
        raise EOFError from None
    try:
        data = await reader.readexactly(_LENGTH.unpack(head)[0])
    except asyncio.IncompleteReadError as exc:
        raise FrameError("a frame broke off") from exc
    return pickle.loads(data)  # noqa: S301 - our own process's frame, never the network's


def read_frame_blocking(stream: BinaryIO) -> object:
    """The next frame from a blocking stream (exactly its bytes); EOFError at the end."""
    head = _read_exactly(stream, _LENGTH.size)
    if head is None:
        raise EOFError
    data = _read_exactly(stream, _LENGTH.unpack(head)[0])
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
