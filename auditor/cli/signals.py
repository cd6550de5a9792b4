"""The command's one signal handler: the first Ctrl-C or SIGTERM stops the run, the second aborts.

A single run (an asyncio event loop) and a fleet (a thread that waits on Dask) both stop on it:
what they write then is what ended (exit 3).
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Protocol

from auditor.cli.parser import PROG

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Stop(Protocol):
    """What a signal sets: an asyncio.Event or a threading.Event."""

    def is_set(self) -> bool:
        """Whether the run was asked to stop already."""
        ...

    def set(self) -> None:
        """Ask the run to stop."""
        ...


@contextmanager
def stop_on_signals(
    stop: Stop, *, doing: str, loop: asyncio.AbstractEventLoop | None = None
) -> Iterator[None]:
    """While inside: the first signal sets `stop` (saying `doing`), the second aborts.

    The second raises KeyboardInterrupt. With `loop`, the handler runs in that event loop (and
    wakes it); else it is installed with `signal.signal`, from the main thread only.
    """

    def signalled(signum: int, _frame: FrameType | None = None) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        print(f"{PROG}: {signal.Signals(signum).name}: {doing}", file=sys.stderr)
        stop.set()

    if loop is not None:
        for signum in SIGNALS:
            loop.add_signal_handler(signum, signalled, signum)
        try:
            yield
        finally:
            for signum in SIGNALS:
                loop.remove_signal_handler(signum)
        return
    if threading.current_thread() is not threading.main_thread():  # signals are the main's
        yield
        return
    previous = {signum: signal.signal(signum, signalled) for signum in SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
