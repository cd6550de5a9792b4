"""Frames (auditor.processes.frames) read from an asyncio stream: a helper's stdout, a child's."""

from __future__ import annotations

import asyncio
import pickle

from auditor.errors import FrameError
from auditor.processes.frames import LENGTH


async def read_frame(reader: asyncio.StreamReader) -> object:
    """The next frame's payload; EOFError when the stream ended between frames."""
    try:
        head = await reader.readexactly(LENGTH.size)
    except asyncio.IncompleteReadError as exc:
        if exc.partial:
            raise FrameError("a frame broke off in its length") from exc
        raise EOFError from None
    try:
        data = await reader.readexactly(LENGTH.unpack(head)[0])
    except asyncio.IncompleteReadError as exc:
        raise FrameError("a frame broke off") from exc
    return pickle.loads(data)  # noqa: S301 - our own process's frame, never the network's
