"""Frames read from an asyncio stream: whole, split anywhere, and across a cancelled read."""

from __future__ import annotations

import asyncio

import pytest

from auditor.errors import FrameError
from auditor.processes.frame_stream import FrameReader, read_frame
from auditor.processes.frames import frame

PAYLOADS: list[object] = [[(1, "a")], None, {"b": 2}]


async def test_frames_fed_at_every_split_point_read_the_same() -> None:
    data = b"".join(frame(payload) for payload in PAYLOADS)
    for cut in range(len(data) + 1):
        reader = asyncio.StreamReader()
        reader.feed_data(data[:cut])
        reader.feed_data(data[cut:])
        reader.feed_eof()
        frames = FrameReader(reader)
        assert [await frames.read() for _ in PAYLOADS] == PAYLOADS
        with pytest.raises(EOFError):
            await frames.read()


async def test_a_read_cancelled_part_way_leaves_the_next_its_frame() -> None:
    """Cancelled after the length arrived, before the pickle: the next read takes the frame."""
    data = frame(PAYLOADS[0]) + frame(PAYLOADS[2])
    for cut in range(1, len(frame(PAYLOADS[0]))):
        reader = asyncio.StreamReader()
        frames = FrameReader(reader)
        reader.feed_data(data[:cut])
        reading = asyncio.ensure_future(frames.read())
        await asyncio.sleep(0)
        reading.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reading
        reader.feed_data(data[cut:])
        assert [await frames.read(), await frames.read()] == [PAYLOADS[0], PAYLOADS[2]]


async def test_a_frame_broken_off_is_a_frame_error_and_an_empty_end_is_eof() -> None:
    reader = asyncio.StreamReader()
    reader.feed_data(frame(PAYLOADS[0])[:-1])
    reader.feed_eof()
    with pytest.raises(FrameError):
        await read_frame(reader)
    empty = asyncio.StreamReader()
    empty.feed_eof()
    with pytest.raises(EOFError):
        await read_frame(empty)
