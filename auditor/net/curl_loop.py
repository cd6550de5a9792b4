"""libcurl's multi handle driven from the event loop's own thread: no thread, no hand-off.

libcurl says which sockets it waits on (CURLMOPT_SOCKETFUNCTION); the loop calls
`curl_multi_socket_action` when one is ready, and when libcurl's next timeout is due (asked with
`curl_multi_timeout` after each batch: no Python call per request for it), and each transfer
that ended is handed to its `finished` callback at once, in the loop's thread
(docs/explanation/design.md#engine). On Linux the sockets wait in an epoll set
of their own, whose one descriptor the loop watches: a socket costs the loop nothing as libcurl
adds and drops it (twice a request). Elsewhere each socket is a reader or writer of the loop.
Only the loop's thread touches the multi.
"""

from __future__ import annotations

import asyncio
import logging
import select
from collections.abc import Callable
from typing import Any

import pycurl

log = logging.getLogger(__name__)
Finished = Callable[[int, str], None]  # (libcurl's error code, its message): 0 when it went well

_EPOLL = getattr(select, "epoll", None)
_IN = getattr(select, "EPOLLIN", 1)
_OUT = getattr(select, "EPOLLOUT", 4)
_ERR = getattr(select, "EPOLLERR", 8) | getattr(select, "EPOLLHUP", 16)
_REMOVE = pycurl.POLL_REMOVE
_CSELECT_IN, _CSELECT_OUT, _CSELECT_ERR = pycurl.CSELECT_IN, pycurl.CSELECT_OUT, pycurl.CSELECT_ERR
# What to wait for, by what libcurl asks (CURL_POLL_NONE, _IN, _OUT, _INOUT).
_EVENTS = {
    pycurl.POLL_NONE: 0,
    pycurl.POLL_IN: _IN,
    pycurl.POLL_OUT: _OUT,
    pycurl.POLL_INOUT: _IN | _OUT,
}


class CurlLoop:
    """One multi handle in the running loop; `add` a prepared easy handle, hear when it ends."""

    def __init__(self, *, per_host: int, concurrency: int) -> None:
        multi = pycurl.CurlMulti()
        # Backstops above the run's own limits (the host gate, the check engine): libcurl
        # queues what exceeds them, and CURLOPT_TIMEOUT_MS would count that time too.
        multi.setopt(pycurl.M_MAX_HOST_CONNECTIONS, per_host)
        multi.setopt(pycurl.M_MAX_TOTAL_CONNECTIONS, concurrency)
        multi.setopt(pycurl.M_MAXCONNECTS, concurrency)  # idle connections kept for reuse
        multi.setopt(pycurl.M_PIPELINING, pycurl.PIPE_MULTIPLEX)  # HTTP/2 streams share one
        multi.setopt(pycurl.M_SOCKETFUNCTION, self._socket)
        self._multi = multi
        self._loop = asyncio.get_running_loop()
        self._running: dict[Any, Finished] = {}  # easy handle -> its callback
        self._watched: dict[int, int] = {}  # socket -> the events it waits for
        self._epoll = _EPOLL() if _EPOLL is not None else None
        if self._epoll is not None:
            self._loop.add_reader(self._epoll.fileno(), self._epoll_ready)
        self._due: asyncio.TimerHandle | asyncio.Handle | None = None
        self._due_at = 0.0  # when `_due` fires (loop time)
        self._kicking = False  # `_due` fires at the loop's next turn
        self._closed = False

    def add(self, curl: Any, finished: Finished) -> None:  # curl: pycurl.Curl (untyped)
        """Start a transfer on `curl` (options set); `finished` is called once, when it ends.

        The transfer begins at the loop's next turn, with every other added in this one.
        """
        self._running[curl] = finished
        self._multi.add_handle(curl)
        if not self._kicking:
            self._soon()  # every transfer added in this turn starts at the next one

    def remove(self, curl: Any) -> bool:
        """Stop `curl`'s transfer, if it runs (True); its callback is not called."""
        if self._running.pop(curl, None) is None:
            return False
        self._multi.remove_handle(curl)
        self._soon()  # let the multi let go of what it held
        return True

    @property
    def running(self) -> int:
        """Transfers under way."""
        return len(self._running)

    def close(self) -> None:
        """Drop every transfer and connection (callbacks not called)."""
        if self._closed:
            return
        self._closed = True
        if self._due is not None:
            self._due.cancel()
        for curl in self._running:
            self._multi.remove_handle(curl)
        self._running.clear()
        self._multi.close()  # closes every connection it kept; sockets go through _socket
        for fd, events in self._watched.items():
            self._unwatch(fd, events)
        self._watched.clear()
        if self._epoll is not None:
            self._loop.remove_reader(self._epoll.fileno())
            self._epoll.close()

    def resume(self, curl: Any) -> None:
        """Let a paused transfer go on (`curl.pause(PAUSE_CONT)`); the multi is told at once."""
        curl.pause(pycurl.PAUSE_CONT)
        self._soon()

    # --- libcurl's callbacks: never call back into the multi from here -----------------------

    def _socket(self, what: int, fd: int, _multi: object, _data: object) -> None:
        """CURLMOPT_SOCKETFUNCTION: wait on `fd` for what libcurl says, or no more."""
        watched, epoll = self._watched, self._epoll
        if what == _REMOVE:
            old = watched.pop(fd, None)
            if old is not None and not self._closed:
                self._unwatch(fd, old)
            return
        if self._closed:
            return
        new = _EVENTS[what]
        if epoll is None:
            self._watch_in_loop(fd, watched.get(fd, 0), new)
        elif fd in watched:
            epoll.modify(fd, new)
        else:
            epoll.register(fd, new)
        watched[fd] = new

    # --- the loop's callbacks -----------------------------------------------------------------

    def _soon(self) -> None:
        """Call the multi at the loop's next turn (transfers added, resumed or removed)."""
        if self._kicking:
            return
        if self._due is not None:
            self._due.cancel()
        self._kicking = True
        self._due_at = 0.0
        self._due = self._loop.call_soon(self._on_timer)

    def _rearm(self) -> None:
        """Be called when libcurl's next timeout is due (asked after each batch)."""
        due_ms = self._multi.timeout()
        if due_ms < 0 or self._kicking or self._closed:
            return  # no timer wanted (one that fires anyway finds nothing due), or one is near
        loop = self._loop
        at = loop.time() + due_ms / 1000
        if self._due is not None:
            if self._due_at <= at:
                return
            self._due.cancel()
        self._due_at = at
        self._due = (
            loop.call_soon(self._on_timer) if due_ms == 0 else loop.call_at(at, self._on_timer)
        )

    def _on_timer(self) -> None:
        self._due = None
        self._kicking = False
        self._act(pycurl.SOCKET_TIMEOUT, 0)

    def _epoll_ready(self) -> None:
        assert self._epoll is not None
        if self._closed:
            return
        action = self._multi.socket_action
        for fd, events in self._epoll.poll(0):
            mask = _CSELECT_IN if events & _IN else 0
            if events & _OUT:
                mask |= _CSELECT_OUT
            if events & _ERR:
                mask |= _CSELECT_ERR | _CSELECT_IN
            action(fd, mask)
        self._collect()
        self._rearm()

    def _act(self, fd: int, mask: int) -> None:
        if self._closed:
            return
        self._multi.socket_action(fd, mask)
        self._collect()
        self._rearm()

    def _collect(self) -> None:
        """Hand every ended transfer to its callback (which may add the next one)."""
        multi, running = self._multi, self._running
        while True:
            queued, ended, failed = multi.info_read()
            for curl in ended:
                finished = running.pop(curl, None)
                if finished is not None:
                    multi.remove_handle(curl)
                    finished(0, "")
            for curl, code, message in failed:
                finished = running.pop(curl, None)
                if finished is not None:
                    multi.remove_handle(curl)
                    finished(code, message)
            if not queued:
                return

    # --- sockets as the loop's own readers and writers (no epoll) ---------------------------

    def _watch_in_loop(self, fd: int, old: int, new: int) -> None:
        loop = self._loop
        if (old ^ new) & _IN:
            if new & _IN:
                loop.add_reader(fd, self._act, fd, pycurl.CSELECT_IN)
            else:
                loop.remove_reader(fd)
        if (old ^ new) & _OUT:
            if new & _OUT:
                loop.add_writer(fd, self._act, fd, pycurl.CSELECT_OUT)
            else:
                loop.remove_writer(fd)

    def _unwatch(self, fd: int, events: int) -> None:
        if self._epoll is not None:
            try:
                self._epoll.unregister(fd)
            except OSError:  # closed already: the kernel dropped it from the set
                return
            return
        self._watch_in_loop(fd, events, 0)
