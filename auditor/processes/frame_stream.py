"""Frames (auditor.processes.frames) read from an asyncio stream: a helper's stdout, a child's."""

from __future__ import annotations

import asyncio
import pickle

from auditor.errors import FrameError
from auditor.processes.frames import LENGTH


async def read_frame(reader: asyncio.StreamReader) -> object:
    """The next frame's payload; EOFError when the stream ended between frames."""
    return await FrameReader(reader).read()


class FrameReader:
    """A stream's frames one by one; a read cancelled part-way leaves the next read its place.

    (StreamReader.readexactly takes no byte until it has them all: only the length read before
    the cancellation needs keeping.)
    """

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader
        self._length: int | None = None  # of the frame whose length is read, not its pickle

    async def read(self) -> object:
        """The next frame's payload; EOFError when the stream ended between frames."""
        if self._length is None:
            try:
                head = await self._reader.readexactly(LENGTH.size)
            except asyncio.IncompleteReadError as exc:
                if exc.partial:
                    raise FrameError("a frame broke off in its length") from exc
                raise EOFError from None
            self._length = LENGTH.unpack(head)[0]
        try:
            data = await self._reader.readexactly(self._length)
        except asyncio.IncompleteReadError as exc:
            raise FrameError("a frame broke off") from exc
        self._length = None
        return pickle.loads(data)  # noqa: S301 - our own process's frame, never the network's
